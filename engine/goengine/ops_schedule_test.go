package goengine

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/workload"
)

// TestScheduleExecutorMatchesTheTopology: without faults, the Go engine's
// executor of the schedule (runSchedule, reading workload's op stream) does
// what the topology's own loop did: the same steps, lifecycles, records,
// rebalances and verified records, and byte-identical changelog files (the
// schedule draws the keys and the moved tasks as the topology did, and
// numbers the puts as it does). With faults, a store's close fails only when
// the schedule armed it.
func TestScheduleExecutorMatchesTheTopology(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	require.NoError(t, sc.Set("close_failure_rate=0"))
	require.NoError(t, sc.Validate())
	const steps = 20
	ctx := context.Background()

	legacyRoot := t.TempDir()
	legacy, err := newTopology(sc, lifecycle.Fixed, false, sc.Seed, legacyRoot)
	require.NoError(t, err)
	require.NoError(t, legacy.start(ctx))
	for range steps {
		legacy.step(ctx)
	}
	legacy.Stop()

	schedRoot := t.TempDir()
	sched := runScheduled(t, sc, schedRoot, steps)

	assert.Equal(t, int64(steps), sched.steps)
	assert.Equal(t, legacy.steps, sched.steps)
	assert.Equal(t, legacy.env.Counts().Lifecycles.Load(), sched.env.Counts().Lifecycles.Load())
	assert.Equal(t, legacy.records, sched.records)
	assert.Equal(t, legacy.rebalances, sched.rebalances)
	assert.Equal(t, legacy.verified, sched.verified)
	assert.Zero(t, sched.lost)
	for task := range sc.Tasks {
		for store := range sc.StoresPerTask {
			a, err := os.ReadFile(changelog.Path(legacyRoot, task, store))
			require.NoError(t, err)
			b, err := os.ReadFile(changelog.Path(schedRoot, task, store))
			require.NoError(t, err)
			assert.True(t, len(a) > 0 && bytes.Equal(a, b), "task %d store %d: the same changelog", task, store)
		}
	}

	// Faults: every close of an armed store fails, no other.
	require.NoError(t, sc.Set("close_failure_rate=1"))
	faulty := runScheduled(t, sc, t.TempDir(), steps)
	assert.Positive(t, faulty.env.Counts().FailedCloses.Load(), "armed closes fail")
	require.NoError(t, sc.Set("close_failure_rate=0"))
	clean := runScheduled(t, sc, t.TempDir(), steps)
	assert.Zero(t, clean.env.Counts().FailedCloses.Load(), "no arm, no failed close")
}

// runScheduled executes sc's schedule up to its steps-th step (the stop
// before step steps+1) with the Fixed model under root.
func runScheduled(t *testing.T, sc scenarios.Scenario, root string, steps int64) *Topology {
	t.Helper()
	topo, err := newTopology(sc, lifecycle.Fixed, false, sc.Seed, root)
	require.NoError(t, err)
	gen, err := workload.New(sc, sc.Seed)
	require.NoError(t, err)
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		_ = gen.WriteTo(pw, done)
		_ = pw.Close()
	}()
	defer func() { close(done); _ = pr.Close() }()
	seen := int64(0)
	stop := func() bool { seen++; return seen > steps }
	require.NoError(t, topo.runSchedule(context.Background(), workload.NewReader(pr), stop, func() bool { return false }))
	topo.Stop()
	require.NoError(t, topo.logErr)
	_, err = os.Stat(filepath.Join(root, "changelog"))
	require.NoError(t, err)
	return topo
}
