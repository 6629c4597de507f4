//go:build cgo

package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/harness"
)

// smallFS mounts a tmpfs of size bytes for the test, unmounted at its end;
// it skips the test where this process may not mount.
func smallFS(t *testing.T, size int64, readOnly bool) string {
	t.Helper()
	fs, err := harness.MountSmallFS(t.TempDir(), size, readOnly)
	if errors.Is(err, harness.ErrNoMount) {
		t.Skip(err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, fs.Close()) })
	return fs.Dir
}

// TestPreflightBadDirectoriesExitTwo: an --out on a read-only file system, a
// --state-dir that does not exist, and a --state-dir with less space than the
// scenario needs each exit 2 before any work (nothing on stdout, no model
// started), the error naming the flag. The control: the same scenario with
// good directories and --no-space-check on the small one runs past the
// preflight.
func TestPreflightBadDirectoriesExitTwo(t *testing.T) {
	readOnly := smallFS(t, 1<<20, true)
	small := smallFS(t, 300<<10, false)
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	base := []string{"run", "--scenario", "smoke", "--models", "fixed", "--lifecycles", "3"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"out on a read-only file system", []string{"--out", filepath.Join(readOnly, "run"), "--state-dir", stateRoot(t)},
			[]string{"--out:", "read-only file system"}},
		{"state dir missing", []string{"--out", filepath.Join(t.TempDir(), "run"), "--state-dir", missing},
			[]string{"--state-dir:", missing, "does not exist"}},
		{"state dir too small", []string{"--out", filepath.Join(t.TempDir(), "run"), "--state-dir", small},
			[]string{"--state-dir:", small, "free, but the scenario needs about"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append(base, tc.args...)...)
			assert.Equal(t, 2, code, "stdout: %s\nstderr: %s", stdout, stderr)
			assert.Empty(t, stdout, "nothing ran")
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
	entries, err := os.ReadDir(small)
	require.NoError(t, err)
	assert.Empty(t, entries, "the preflight leaves nothing behind")

	// Control: good directories pass the preflight and the run completes.
	stdout, stderr, code := runCLI(t, append(base, "--out", filepath.Join(t.TempDir(), "run"), "--state-dir", stateRoot(t))...)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
}
