//go:build cgo

package main

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/experiment"
	"github.com/rocksleak/rocksleak/harness"
)

// TestDiskFullKnownAnswer: on a full tmpfs of the run's own, every open fails
// with RocksDB's ENOSPC error; under 4.3.0's ownership (leaky) each failed
// open leaves exactly one options object live (the ledger) and the native
// heap grows by the number of retries times the per-retry leak (within 10%),
// above the 2 KiB floor; under 4.3.1's (fixed, the negative control) none is
// left and the per-retry leak stays under the floor. No mount is left behind.
func TestDiskFullKnownAnswer(t *testing.T) {
	runs := diskFullRuns(t, "leaky", "fixed")
	for _, r := range runs {
		assert.Contains(t, r.FirstError, "No space left on device", r.Model)
	}
	leaky, fixed := runs[0], runs[1]
	leakyPer, err := analysis.DiskFullPerRetry(leaky.Samples)
	require.NoError(t, err)
	fixedPer, err := analysis.DiskFullPerRetry(fixed.Samples)
	require.NoError(t, err)
	assert.Equal(t, int64(200), leaky.LiveOptions, "4.3.0: one offsets options object per failed open")
	assert.Greater(t, leakyPer.Value, 2048.0)
	assert.InEpsilon(t, float64(leaky.Attempts)*leakyPer.Value, float64(leaky.Growth), 0.10, "retries × per-retry leak")
	assert.Zero(t, fixed.LiveOptions, "4.3.1 closes them")
	assert.Less(t, fixedPer.Value, 2048.0)

	c := analysis.DiskFullCostOf(analysis.ReplaceThread, 4, leakyPer.Value, analysis.DefaultReplaceInterval)
	assert.InDelta(t, 4*60.0/45, c.RetriesPerMin, 1e-9)
	assert.InDelta(t, c.RetriesPerMin*leakyPer.Value, c.GrowthPerMin, 1e-6)
	assert.Zero(t, analysis.DiskFullCostOf(analysis.ShutdownClient, 4, leakyPer.Value, analysis.DefaultReplaceInterval).GrowthPerMin)
}

// diskFullRuns runs kafka-20616's disk-full scenario for models, 200 failed
// opens each, skipping the test where no file system may be mounted; every
// model's run ended without error, every open failed.
func diskFullRuns(t *testing.T, models ...string) []harness.DiskFullRun {
	t.Helper()
	sc := mustScenario(t, "kafka-20616")
	runs, err := harness.RunDiskFull(context.Background(), harness.DiskFullConfig{
		Config: harness.Config{Engines: experiment.Engines(), Scenario: sc, Models: models, Seed: sc.Seed}, Attempts: 200})
	if errors.Is(err, harness.ErrNoMount) {
		t.Skip(err)
	}
	require.NoError(t, err)
	require.Len(t, runs, len(models))
	for _, r := range runs {
		require.Empty(t, r.Error, r.Model)
		assert.Equal(t, int64(200), r.Attempts, "%s: every open failed", r.Model)
	}
	return runs
}
