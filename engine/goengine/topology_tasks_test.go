package goengine

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
)

// TestHooksDecideRecordsAndOffsets: a hooked topology writes the records
// Hooks.Record names with Hooks.Value's values (read back as such), shows
// each to Hooks.Written, and commits each store's whole changelog offset
// under Hooks.Partition, where CommittedOffsets and a resumed task read it.
// The negative control: unhooked, the keys are the topology's own draw and
// no single partition holds the offset (CommittedOffsets reports none).
func TestHooksDecideRecordsAndOffsets(t *testing.T) {
	for _, hooked := range []bool{true, false} {
		t.Run(fmt.Sprintf("hooked=%v", hooked), func(t *testing.T) {
			sc, err := scenarios.Get("smoke")
			require.NoError(t, err)
			require.NoError(t, sc.Set("tasks=2"))
			require.NoError(t, sc.Set("close_failure_rate=0"))
			require.NoError(t, sc.Validate())
			root := t.TempDir()
			topo, err := newTopology(sc, lifecycle.Fixed, false, 1, root)
			require.NoError(t, err)
			written := map[StoreID][]changelog.Record{}
			nWritten := 0
			if hooked {
				topo.Hook(recordingHooks(written, &nWritten))
			}
			ctx := context.Background()
			for k := range topo.Tasks() {
				opens, ok, err := topo.ResumeTask(ctx, k, 0)
				require.NoError(t, err)
				require.True(t, ok)
				for _, o := range opens {
					assert.Equal(t, StoreNew, o.How)
				}
			}
			const steps = 3
			for pos := range int64(steps) {
				require.True(t, topo.StepTask(ctx, 1, pos))
			}
			offsets := topo.CommittedOffsets([]int{1})
			require.Len(t, offsets, sc.StoresPerTask)
			id := StoreID{Task: 1, Store: 0}
			if !hooked {
				assert.Zero(t, nWritten)
				for _, o := range offsets {
					assert.False(t, o.HasCommitted, "no single partition holds the offset")
				}
				topo.Stop()
				return
			}
			assert.Equal(t, steps*sc.RecordsPerStep*sc.StoresPerTask, nWritten, "Written saw every record")
			last := written[id][len(written[id])-1]
			assert.Equal(t, fmt.Sprintf("hooked-1-%d", sc.RecordsPerStep-1), last.Key)
			assert.Equal(t, int64(2*sc.StepMs+int64(sc.RecordsPerStep)), last.Ver, "the hook's version")
			for _, o := range offsets {
				assert.True(t, o.HasCommitted)
				assert.Equal(t, int64(steps*sc.RecordsPerStep), o.Committed, "the whole offset under the hook's partition")
				assert.Equal(t, o.ChangelogEnd, o.Committed)
			}
			assert.Equal(t, []byte(last.Key+"=value"), topo.Read(id, last), "the hook's value, read back")
			lost, taskErrors, _ := topo.Checked()
			assert.Zero(t, lost)
			assert.Zero(t, taskErrors)
			topo.Stop()

			// Resumed over the state it kept, each store reopens at the
			// offset committed under the hook's partition.
			assertReopensUnderHooks(t, sc, topo.hooks, root, steps)
		})
	}
}

// recordingHooks are TestHooksDecideRecordsAndOffsets' hooks: record i of a
// step is keyed hooked-<task>-<i> with version from+i+1, its value is
// <key>=value, each store has a partition of its own, and every written
// record is appended to written[id] and counted in *n.
func recordingHooks(written map[StoreID][]changelog.Record, n *int) Hooks {
	return Hooks{
		Record: func(id StoreID, from, ts int64, i, n int) (string, int64) {
			return fmt.Sprintf("hooked-%d-%d", id.Task, i), from + int64(i) + 1
		},
		Value:     func(id StoreID, r changelog.Record) []byte { return []byte(r.Key + "=value") },
		Partition: func(id StoreID) string { return fmt.Sprintf("partition-%d-%d", id.Task, id.Store) },
		Written: func(id StoreID, r changelog.Record) {
			written[id] = append(written[id], r)
			*n++
		},
	}
}

// assertReopensUnderHooks resumes task 1 at input position steps on a new
// topology (seed 2) over root with hooks, and asserts that each store
// reopens at the offset committed under the hook's partition
// (steps × RecordsPerStep), nothing lost and something verified.
func assertReopensUnderHooks(t *testing.T, sc scenarios.Scenario, hooks Hooks, root string, steps int) {
	t.Helper()
	again, err := newTopology(sc, lifecycle.Fixed, false, 2, root)
	require.NoError(t, err)
	again.Hook(hooks)
	opens, ok, err := again.ResumeTask(context.Background(), 1, int64(steps))
	require.NoError(t, err)
	require.True(t, ok)
	for _, o := range opens {
		assert.Equal(t, StoreReopened, o.How)
		assert.Equal(t, int64(steps*sc.RecordsPerStep), o.Committed)
	}
	lost, _, verified := again.Checked()
	assert.Zero(t, lost)
	assert.Positive(t, verified)
	again.Stop()
}
