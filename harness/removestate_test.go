package harness

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoveStateReportsWhatIsLeft: a state directory on a file system turned
// read-only cannot be removed, and removeState names it with the error;
// the control, the same directory on a writable file system, is removed and
// reported as gone ("").
func TestRemoveStateReportsWhatIsLeft(t *testing.T) {
	fs, err := MountSmallFS(t.TempDir(), 1<<20, false)
	if errors.Is(err, ErrNoMount) {
		t.Skip(err)
	}
	require.NoError(t, err)
	defer func() { assert.NoError(t, fs.Close()) }()
	mk := func(root string) string {
		dir := filepath.Join(root, "rocksleak-fixed-1")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "task-0", "gen-0"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "task-0", "gen-0", "MANIFEST-000001"), []byte("x"), 0o644))
		return dir
	}
	stuck := mk(fs.Dir)
	require.NoError(t, fs.ReadOnly())
	left := removeState(stuck)
	assert.Contains(t, left, stuck)
	assert.Contains(t, left, "read-only file system")

	gone := mk(t.TempDir())
	assert.Empty(t, removeState(gone), "control: a writable directory is removed")
	_, err = os.Stat(gone)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
