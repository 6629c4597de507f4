package goengine

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
)

// TestFullDiskIsNotDataLoss: a window store's state disk fills under a
// running topology (one task of the kafka-20616 scenario). The writes that fail then are counted as failed writes
// (Kafka reprocesses them), the changelog records the store cannot restore
// as unavailable (Kafka restores them once it can), and neither as records
// lost. The control: before the disk fills, every record verifies
// and nothing is counted.
func TestFullDiskIsNotDataLoss(t *testing.T) {
	fs, err := harness.MountSmallFS(t.TempDir(), 4<<20, false)
	if errors.Is(err, harness.ErrNoMount) {
		t.Skip(err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, fs.Close()) })
	sc, err := scenarios.Get("kafka-20616")
	require.NoError(t, err)
	require.NoError(t, sc.Set("tasks=1"))
	require.NoError(t, sc.Set("close_failure_rate=0"))
	require.NoError(t, sc.Validate())
	topo, err := newTopology(sc, lifecycle.Fixed, false, sc.Seed, fs.Dir)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, topo.start(ctx))
	for range 10 {
		topo.step(ctx)
	}
	tk := topo.tasks[0]
	require.True(t, topo.reopenTask(ctx, tk))
	assert.Positive(t, topo.verified, "control: the records verify")
	assert.Zero(t, topo.lost+topo.unavailable+topo.writeFailed+topo.taskErrors, "control: nothing counted before the fault")

	require.NoError(t, fill(fs.Dir))
	for range 10 {
		topo.step(ctx)
	}
	topo.reopenTask(ctx, tk) // its open now fails: ENOSPC
	topo.Stop()
	assert.Positive(t, topo.taskErrors)
	assert.Positive(t, topo.writeFailed+topo.unavailable, "the fault is counted")
	assert.Zero(t, topo.lost, "a full disk loses no record Kafka would keep: %d unavailable, %d failed writes",
		topo.unavailable, topo.writeFailed)
	t.Logf("task errors %d, unavailable %d, failed writes %d, first: %v", topo.taskErrors, topo.unavailable, topo.writeFailed, topo.taskErrorEx)
}
