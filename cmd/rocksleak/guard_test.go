//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// TestMemoryGuardStopsLeakingChild: a child made to leak 8 MiB per lifecycle
// (the calibration's synthetic leak) under --max-rss 64MiB is stopped by the
// parent's guard long before its 2,000 lifecycles; the run exits 1 and writes
// a valid result marked failed, the run marked stopped_by_guard, the reason in
// the summary and in report.md, and its samples kept. The control: the same
// scenario without the synthetic leak under the same limit is not stopped.
func TestMemoryGuardStopsLeakingChild(t *testing.T) {
	leakArgs := []string{"run", "--scenario", "calibration", "--lifecycles", "2000", "--max-rss", "64MiB",
		"--set", "synthetic_leak_bytes=8388608", "--state-dir", stateRoot(t)}
	out := filepath.Join(t.TempDir(), "leak")
	stdout, stderr, code := runCLI(t, append(leakArgs, "--models", "fixed+synthetic", "--out", out)...)
	require.Equal(t, 1, code, "stdout: %s\nstderr: %s", stdout, stderr)
	r := readResult(t, out)
	assert.Equal(t, schema.StatusFailed, r.Status)
	assert.False(t, r.Interrupted, "a guard stop is not an interrupt")
	run := r.Runs["fixed+synthetic"]
	require.NotNil(t, run)
	assert.Contains(t, run.StoppedByGuard, "stopped by the memory guard")
	assert.Contains(t, run.StoppedByGuard, "--max-rss 64.0 MiB")
	assert.Greater(t, run.OutsideRSSPeak, int64(64<<20))
	assert.Less(t, run.Lifecycles, int64(2000), "stopped early")
	assert.Positive(t, run.Samples, "the samples up to the stop are kept")
	assert.Contains(t, stdout, "stopped by the memory guard", "the summary says why")
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(report), "stopped by the memory guard")

	control := filepath.Join(t.TempDir(), "control")
	stdout, stderr, code = runCLI(t, "run", "--scenario", "calibration", "--lifecycles", "30", "--max-rss", "64MiB",
		"--models", "fixed", "--state-dir", stateRoot(t), "--out", control)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
	c := readResult(t, control)
	assert.Empty(t, c.Runs["fixed"].StoppedByGuard)
	assert.Positive(t, c.Runs["fixed"].OutsideRSSPeak, "watched from outside")
	assert.Less(t, c.Runs["fixed"].OutsideRSSPeak, int64(64<<20))
}
