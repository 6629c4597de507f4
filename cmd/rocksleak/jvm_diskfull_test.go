//go:build cgo

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
)

// TestDiskFullOnTheJars is TestDiskFullKnownAnswer on Kafka's own jars: on a
// full tmpfs of the run's own, each attempt opens a task's window store and
// writes its first record, whose segment's open Kafka's
// RocksDBStore.openDB fails with RocksDB's write error
// (ProcessorStateException); every attempt is one failed init. 4.3.0 leaves
// one offsets-CF options object per failed open and its native heap grows
// by the attempts times the per-retry cost (within 10%), above the 2 KiB
// floor; 4.3.1 (the negative control) leaves none and stays under the floor.
// Shown failing before the Java child read the job's disk_full: it ran the
// op stream instead (kafka-4.3.1: 45,016 failed opens, -469 KiB per retry).
func TestDiskFullOnTheJars(t *testing.T) {
	if testing.Short() {
		t.Skip("two JVM children of 200 failed opens take about 20 seconds")
	}
	requireJVM(t, "4.3.0", "4.3.1")
	runs := diskFullRuns(t, "kafka-4.3.0", "kafka-4.3.1")
	for _, r := range runs {
		assert.Contains(t, r.FirstError, "ProcessorStateException: Error opening store store-0.0", r.Model)
		assert.Contains(t, r.FirstError, "While appending to file", r.Model)
	}
	v430, v431 := runs[0], runs[1]
	per430, err := analysis.DiskFullPerRetry(v430.Samples)
	require.NoError(t, err)
	per431, err := analysis.DiskFullPerRetry(v431.Samples)
	require.NoError(t, err)
	t.Logf("per failed open: kafka-4.3.0 %.0f B [%.0f, %.0f], kafka-4.3.1 %.0f B [%.0f, %.0f]",
		per430.Value, per430.Low, per430.High, per431.Value, per431.Low, per431.High)
	assert.Equal(t, int64(200), v430.LiveOptions, "4.3.0: one offsets options object per failed open")
	assert.Greater(t, per430.Low, 2048.0)
	assert.InEpsilon(t, float64(v430.Attempts)*per430.Value, float64(v430.Growth), 0.10, "retries × per-retry cost")
	assert.Zero(t, v431.LiveOptions, "4.3.1 closes them")
	assert.Less(t, per431.High, 2048.0)
}
