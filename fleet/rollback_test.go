package fleet

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/workload"
)

// rolledBackFleet is a fleet of two instances (one task each, one store per
// task, 2 records per step) whose instance 0 was rolled back after 3 steps:
// its changelog file holds 6 records, its store committed 6 at the stop and
// held 6 at the reopen.
func rolledBackFleet(t *testing.T) *fleetRuntime {
	t.Helper()
	sc, err := scenarios.Get("rehearsal")
	require.NoError(t, err)
	sc.Tasks, sc.StoresPerTask, sc.RecordsPerStep = 2, 1, 2
	a, err := NewAssignment(2, 2, 2)
	require.NoError(t, err)
	f := &fleetRuntime{cfg: RehearsalConfig{Scenario: sc, From: "fixed", To: "fixed+synthetic"}, root: t.TempDir(),
		assign: a, pos: map[int]int64{0: 3, 1: 3}, models: []string{"fixed", "fixed"},
		ready:      []*InstanceReady{{Stores: []goengine.StoreOpen{{Task: 0, How: goengine.StoreReopened, Committed: 6, HasCommitted: true, ChangelogEnd: 6}}}, nil},
		stopped:    map[int]*InstanceStopped{0: {Stores: []goengine.StoreOpen{{Task: 0, Committed: 6, HasCommitted: true, ChangelogEnd: 6}}}},
		mismatches: map[int][]string{},
		rec: &schema.Rehearsal{Instances: []schema.FleetInstance{{ID: 0, Tasks: []int{0}}, {ID: 1, Domain: 1, Tasks: []int{1}}},
			Phases: []schema.Phase{{Name: "rollback", Instances: []schema.InstancePhase{{Instance: 0}, {Instance: 1}}}}}}
	w, err := changelog.OpenWriter(changelog.Path(f.root, 0, 0), 0)
	require.NoError(t, err)
	for i := range 6 {
		_, err := w.Append(changelog.Record{Key: workload.Key(i), Ts: int64(i), Ver: 1})
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return f
}

// TestVerifyRollbackFailsEachCheckOnItsOwnEvidence: the clean rollback
// verifies (negative control); each kind of damage fails its check and
// that one only (positive controls).
func TestVerifyRollbackFailsEachCheckOnItsOwnEvidence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(f *fleetRuntime)
		failed string // "" when every check passes
	}{
		{"clean", func(*fleetRuntime) {}, ""},
		{"old version cannot open", func(f *fleetRuntime) {
			f.ready[0].TaskErrors = 1
			f.ready[0].Stores[0].Error = "task 0 store-0: Corruption"
		}, "old version opens the new version's state"},
		{"offset rewound", func(f *fleetRuntime) { f.ready[0].Stores[0].Committed = 4 }, "changelog offsets preserved"},
		{"changelog short of the position", func(f *fleetRuntime) { f.pos[0] = 4 }, "changelog offsets preserved"},
		{"record lost at the reopen", func(f *fleetRuntime) { f.ready[0].Lost = 2 }, "no record lost"},
		{"record lost in the window", func(f *fleetRuntime) { f.rec.Phases[0].Instances[0].Summary.RecordsLost = 1 }, "no record lost"},
		{"outputs differ", func(f *fleetRuntime) { f.mismatches[0] = []string{"rollback: task 0: hash differs"} }, "outputs equal the reference replay"},
		{"still on the new version", func(f *fleetRuntime) { f.models[1] = "fixed+synthetic" }, "version mapping restored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := rolledBackFleet(t)
			tc.damage(f)
			checks := f.verifyRollback([]int{0})
			require.Len(t, checks, 5)
			for _, c := range checks {
				assert.Equal(t, c.Name != tc.failed, c.OK, "%s: %s", c.Name, c.Detail)
			}
		})
	}
}
