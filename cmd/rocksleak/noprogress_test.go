//go:build cgo

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// TestFullStateDiskStopsByItself is issue 31's reproduction: both models on a
// 300 KiB tmpfs state directory (past the preflight with --no-space-check)
// spun on main until interrupted. Here each is stopped for making no progress,
// its result marked with the cause naming RocksDB's "No space left on device",
// and the command exits 1 with what to fix; the memory guard did not have to
// act. A run that does not stop within three minutes is cancelled (exit 130)
// and fails the test. The control, a healthy run under the same watch, is
// TestPreflightBadDirectoriesExitTwo's last run (exit 0).
func TestFullStateDiskStopsByItself(t *testing.T) {
	state := smallFS(t, 300<<10, false)
	out := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, &stdout, &stderr, []string{"run", "--models", "leaky,fixed", "--lifecycles", "300",
		"--state-dir", state, "--no-space-check", "--out", out})
	require.Equal(t, 1, exitCode(err), "err: %v\nstdout: %s", err, stdout.String())
	assert.Contains(t, err.Error(), "to fix: the state directory "+state+" is full")
	r := readResult(t, out)
	assert.Equal(t, schema.StatusFailed, r.Status)
	assert.False(t, r.Interrupted)
	for _, m := range []string{"leaky", "fixed"} {
		run := r.Runs[m]
		require.NotNil(t, run, m)
		assert.Contains(t, run.StoppedNoProgress, "stopped for making no progress", m)
		assert.Contains(t, run.StoppedNoProgress, "No space left on device", m)
		assert.Empty(t, run.StoppedByGuard, m)
		assert.Less(t, run.Lifecycles, int64(300), m)
	}
	assert.Contains(t, stdout.String(), "stopped for making no progress")
	entries, err := os.ReadDir(state)
	require.NoError(t, err)
	assert.Empty(t, entries, "no state left behind")
}
