// Package golden compares test output with checked-in golden files. Tests
// that import it get a -update flag: `go test ./pkg/ -update` rewrites the
// files instead of comparing, for review in the diff.
package golden

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing")

// Updating reports whether -update was given.
func Updating() bool { return *update }

// Check compares got with the file at path, or writes got to path under
// -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run the test with -update to create %s", path)
	assert.Equal(t, string(want), string(got), "%s differs; if the change is intended, run with -update and review the diff", path)
}
