package rehearsal

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/schema"
)

// fixtures are the committed rehearsal.json fixtures and their generators
// (synth_test.go): `go test ./rehearsal -update` regenerates them.
var fixtures = []struct {
	name string
	gen  func(testing.TB) *schema.Rehearsal
}{
	{"rollout", rolloutFixture},
	{"rollback", rollbackFixture},
}

// The fixtures are gzipped rehearsal.json files (the samples make them
// ~0.5 MB of JSON each).
func fixturePath(name string) string { return filepath.Join("testdata", name+".rehearsal.json.gz") }

func readFixture(t testing.TB, name string) *schema.Rehearsal {
	t.Helper()
	f, err := os.Open(fixturePath(name))
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	var r schema.Rehearsal
	require.NoError(t, json.NewDecoder(zr).Decode(&r))
	return &r
}

// gzipped compresses b deterministically (no name, no time in the header).
func gzipped(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// The generator is deterministic and the committed fixtures are its output.
func TestFixturesUpToDate(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			b, err := json.Marshal(f.gen(t))
			require.NoError(t, err)
			got := gzipped(t, append(b, '\n'))
			if !golden.Updating() {
				// Compare the JSON, not the compressed bytes, for a readable diff.
				want := readFixture(t, f.name)
				wantJSON, err := json.Marshal(want)
				require.NoError(t, err)
				jsonClose(t, wantJSON, b, "run with -update to regenerate "+fixturePath(f.name))
				return
			}
			golden.Check(t, fixturePath(f.name), got)
		})
	}
}

// The gates recorded in the fixtures are what Gate decides on them.
func TestFixtureGatesReproduce(t *testing.T) {
	for _, f := range fixtures {
		r := readFixture(t, f.name)
		for i, ph := range r.Phases {
			if ph.Gate == nil {
				continue
			}
			g, err := Gate(policyOf(t, r), r, i, ph.Gate.Candidates, ph.Gate.Baselines)
			require.NoError(t, err)
			want, err := json.Marshal(ph.Gate)
			require.NoError(t, err)
			got, err := json.Marshal(g)
			require.NoError(t, err)
			jsonClose(t, want, got, f.name+": phase "+ph.Name)
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteMarkdown(&buf, readFixture(t, f.name)))
			golden.Check(t, filepath.Join("testdata", f.name+".md"), buf.Bytes())
		})
	}
}

// What the report must show, whatever its layout.
func TestMarkdownContent(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteMarkdown(&buf, readFixture(t, "rollback")))
	md := buf.String()
	for _, want := range []string{
		"# Upgrade rehearsal: fixed → fixed+synthetic: rolled-back",
		"## Version mapping over time",
		"| 26m40s | 0 | fixed+synthetic | fixed | rollback |",
		"**Gate: ❌ fail**",
		"lies above limit",
		"## Rollback",
		"Instance 0 rolled back to `fixed`: ✅ verified",
		"| changelog offsets preserved | ✅ ok |",
		"**rolled-back** (exit status 1)",
	} {
		assert.Contains(t, md, want)
	}
}

// jsonClose asserts that two JSON documents are equal but for numbers that
// differ by at most 1 + 1e-9 of their size: floating point may round
// differently on another architecture (fused multiply-add), which must not
// fail the comparison of a generated fixture.
func jsonClose(t *testing.T, want, got []byte, msg string) {
	t.Helper()
	var w, g any
	require.NoError(t, json.Unmarshal(want, &w))
	require.NoError(t, json.Unmarshal(got, &g))
	var walk func(path string, a, b any) bool
	walk = func(path string, a, b any) bool {
		switch av := a.(type) {
		case float64:
			bv, ok := b.(float64)
			if !ok || math.Abs(av-bv) > 1+1e-9*math.Abs(av) {
				t.Errorf("%s: %s: want %v, got %v", msg, path, a, b)
				return false
			}
		case map[string]any:
			bv, ok := b.(map[string]any)
			if !ok || len(av) != len(bv) {
				t.Errorf("%s: %s: want %d fields, got %v", msg, path, len(av), b)
				return false
			}
			for k, x := range av {
				if !walk(path+"."+k, x, bv[k]) {
					return false
				}
			}
		case []any:
			bv, ok := b.([]any)
			if !ok || len(av) != len(bv) {
				t.Errorf("%s: %s: want %d elements, got %T of another length", msg, path, len(av), b)
				return false
			}
			for i := range av {
				if !walk(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]) {
					return false
				}
			}
		default:
			if a != b {
				t.Errorf("%s: %s: want %v, got %v", msg, path, a, b)
				return false
			}
		}
		return true
	}
	walk("$", w, g)
}
