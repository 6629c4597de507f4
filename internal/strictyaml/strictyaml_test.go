package strictyaml

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type doc struct {
	Name  string `yaml:"name"`
	Count int    `yaml:"count"`
}

func TestDecodeOne(t *testing.T) {
	fields := map[string][]string{"strictyaml.doc": {"name", "count"}}
	d := doc{Count: 7}
	require.NoError(t, DecodeOne([]byte("name: a\n"), &d, "test", "strictyaml.", fields))
	assert.Equal(t, doc{Name: "a", Count: 7}, d, "absent fields keep their defaults")

	for _, tc := range []struct{ in, want string }{
		{"", "the document is empty"},
		{"name: a\nbogus: 1\n", `line 2: unknown field "bogus" (valid fields: name, count)`},
		{"count: many\n", "cannot unmarshal"},
		{"name: a\n---\nname: b\n", "a test file holds one YAML document"},
		{"<<: [*a]\n", "unknown anchor"},
		{"a: &a [1]\n<<: {<<: *a}\n", ""},
	} {
		err := DecodeOne([]byte(tc.in), &doc{}, "test", "strictyaml.", fields)
		require.Error(t, err, "%q", tc.in)
		assert.Contains(t, err.Error(), tc.want, "%q", tc.in)
	}
}

// TestReadFile: a file is read whole up to max; a larger one is cut at max+1
// bytes (so the parser sees it is too large without reading it all); a
// missing file's error names the path.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.yaml")
	require.NoError(t, os.WriteFile(p, []byte("0123456789"), 0o644))
	b, err := ReadFile(p, 10)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(b))
	b, err = ReadFile(p, 4)
	require.NoError(t, err)
	assert.Equal(t, "01234", string(b))
	_, err = ReadFile(filepath.Join(dir, "missing.yaml"), 10)
	assert.ErrorContains(t, err, "missing.yaml")
	_, err = ReadFile(dir, 10)
	assert.ErrorContains(t, err, dir+": read ")
}
