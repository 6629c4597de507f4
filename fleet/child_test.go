package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

// runInstanceJob runs one instance child in this process on a script of
// commands and returns its events.
func runInstanceJob(t *testing.T, sc scenarios.Scenario, model string, ij InstanceJob, stateDir string, cmds ...InstanceCommand) []Event {
	t.Helper()
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	rn, err := spec.ParseRunName(model, scenarios.ModelNames())
	require.NoError(t, err)
	require.NoError(t, enc.Encode(Job{Job: harness.Job{Scenario: sc, Model: model, RunName: rn, Seed: 1 + int64(ij.ID), StateDir: stateDir}, Instance: &ij}))
	for _, c := range cmds {
		require.NoError(t, enc.Encode(c))
	}
	var out bytes.Buffer
	require.NoError(t, RunInstance(context.Background(), &in, &out))
	var events []Event
	require.NoError(t, harness.DecodeEvents(&out, func(e Event) { events = append(events, e) }))
	return events
}

func findReady(t *testing.T, events []Event) *InstanceReady {
	t.Helper()
	for _, e := range events {
		if e.Ready != nil {
			return e.Ready
		}
	}
	require.Fail(t, "no ready event")
	return nil
}

func phaseEnds(events []Event) []*InstancePhaseEnd {
	var out []*InstancePhaseEnd
	for _, e := range events {
		if e.PhaseEnd != nil {
			out = append(out, e.PhaseEnd)
		}
	}
	return out
}

// TestInstanceRestartReopensAndMovedTaskRestores runs fleet instances in
// this process on real RocksDB: instance 0 owns tasks 0 and 1 and stops;
// restarted over its state it reopens every store at the offset it
// committed; then task 1 moves to instance 1, which holds no state for it
// and restores it from the changelog. In every phase the outputs equal the
// parent's reference replay, and nothing is lost.
func TestInstanceRestartReopensAndMovedTaskRestores(t *testing.T) {
	sc, err := scenarios.Get("rehearsal")
	require.NoError(t, err)
	require.NoError(t, sc.Set("tasks=2"))
	require.NoError(t, sc.Set("close_failure_rate=0")) // every close clean: a restart reopens
	require.NoError(t, sc.Validate())
	root := t.TempDir()
	ref := NewReference(sc, 99)
	checkOutputs := func(pe *InstancePhaseEnd) {
		for _, o := range pe.Outputs {
			h, n, err := ref.Outputs(o.Task, o.From, o.To)
			require.NoError(t, err)
			assert.Equal(t, n, o.Records, "task %d", o.Task)
			assert.Equal(t, h, o.Hash, "task %d steps [%d, %d) equal the reference", o.Task, o.From, o.To)
		}
	}
	tick := func(until int64) InstanceCommand {
		return InstanceCommand{Tick: &TickCommand{Until: until, Budget: 100}}
	}
	stop := InstanceCommand{Stop: true}
	end := InstanceCommand{PhaseEnd: true}
	state0, state1 := t.TempDir(), t.TempDir()

	first := runInstanceJob(t, sc, "leaky", InstanceJob{ID: 0, Tasks: []int{0, 1}, FleetRoot: root, FleetSeed: 99}, state0,
		tick(30), end, stop)
	for _, s := range findReady(t, first).Stores {
		assert.Equal(t, goengine.StoreNew, s.How)
	}
	pes := phaseEnds(first)
	require.Len(t, pes, 1)
	checkOutputs(pes[0])
	assert.Positive(t, pes[0].Summary.Lifecycles)

	second := runInstanceJob(t, sc, "fixed", InstanceJob{ID: 0, Tasks: []int{0, 1}, Positions: map[int]int64{0: 30, 1: 30},
		FleetRoot: root, FleetSeed: 99}, state0, tick(40), end, stop)
	r := findReady(t, second)
	assert.Zero(t, r.Lost)
	assert.Zero(t, r.TaskErrors)
	require.Len(t, r.Stores, 4)
	for _, s := range r.Stores {
		assert.Equal(t, goengine.StoreReopened, s.How, "task %d store %d", s.Task, s.Store)
		assert.True(t, s.HasCommitted)
		assert.Equal(t, int64(30*sc.RecordsPerStep), s.Committed, "the offset committed before the restart")
		assert.Equal(t, s.ChangelogEnd, s.Committed)
	}
	pes = phaseEnds(second)
	require.Len(t, pes, 1)
	checkOutputs(pes[0])
	assert.Zero(t, pes[0].Summary.RecordsLost)

	// Instance 0 is gone; task 1 moves to instance 1, which never held it.
	a, err := NewAssignment(2, 2, 1)
	require.NoError(t, err)
	moves, err := a.Remove(0)
	require.NoError(t, err)
	require.Equal(t, map[int]int{0: 1}, moves)
	third := runInstanceJob(t, sc, "fixed", InstanceJob{ID: 1, Tasks: []int{1}, Positions: map[int]int64{1: 40},
		FleetRoot: root, FleetSeed: 99}, state1, tick(50), end, stop)
	r = findReady(t, third)
	assert.Zero(t, r.Lost)
	for _, s := range r.Stores {
		assert.Equal(t, goengine.StoreRestored, s.How, "task 1 store %d restores from the changelog", s.Store)
	}
	assert.Positive(t, r.Verified, "the restored records were read back")
	pes = phaseEnds(third)
	require.Len(t, pes, 1)
	_, _, err = ref.Outputs(0, 40, 40) // task 0 stays where it was
	require.NoError(t, err)
	checkOutputs(pes[0])
	assert.Positive(t, pes[0].Summary.Restore.Count)
}
