package goengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
)

// TestCorruptionWipesTheWholeTaskAndRestoresFromMinusOne: under exactly-once a
// store that reopens with an unclean status corrupts its task: every store of
// the task is restored from scratch (restores come in whole tasks), the
// window stores restore from stream time −1, creating and expiring segments
// (restore.segment_lifecycles), and nothing is lost. The negative control:
// without close failures no task is ever corrupted and nothing restores.
func TestCorruptionWipesTheWholeTaskAndRestoresFromMinusOne(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate string
	}{{"unclean", "close_failure_rate=1"}, {"clean", "close_failure_rate=0"}} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenarios.Get("restore-churn")
			require.NoError(t, err)
			require.NoError(t, sc.Set("tasks=1"))
			require.NoError(t, sc.Set(tc.rate))
			require.NoError(t, sc.Validate())
			root := t.TempDir()
			topo, err := newTopology(sc, lifecycle.Leaky, false, sc.Seed, root)
			require.NoError(t, err)
			ctx := context.Background()
			require.NoError(t, topo.start(ctx))
			for range 2*sc.RebalanceEverySteps + 1 {
				topo.step(ctx)
			}
			topo.Stop()
			rs := topo.restoreStats()
			assert.Zero(t, topo.lost)
			assert.Zero(t, topo.taskErrors)
			if tc.rate == "close_failure_rate=0" {
				assert.Zero(t, rs.Count)
				assert.Zero(t, rs.SegmentLifecycles)
				return
			}
			require.Positive(t, rs.Count)
			assert.Zero(t, rs.Count%int64(sc.StoresPerTask), "every store of a corrupted task restores: %d restores", rs.Count)
			require.Len(t, rs.RecordsEach, int(rs.Count), "each restore's records, beside its duration")
			var sum int64
			for _, n := range rs.RecordsEach {
				sum += n
			}
			assert.Equal(t, rs.Records, sum, "each restore's records add up to the run's")
			assert.Greater(t, rs.SegmentLifecycles, rs.Count, "each restore from −1 creates and expires segments")
			_, err = os.Stat(filepath.Join(root, "task-0", "gen-0"))
			assert.NoError(t, err, "under RocksJava semantics the task is wiped in place, not moved aside")
		})
	}
}

// TestRestoresReplayTheChangelogFile: a store's changelog is its file, with
// one record per accepted put (versions unique), and every restore replays
// the file in restore batches: a kv store every record in it (an
// uncompacted changelog topic), a window store the records within the
// topic's retention (stream time − retention − additional retention). The
// only view of the changelog the child holds, t.latest, stays within
// key_spread entries (kv) or the live segments' records (window).
func TestRestoresReplayTheChangelogFile(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		set      []string
		steps    int
	}{
		{"restore-peak", []string{"restore_scratch_bytes=0", "key_spread=50", "records_per_step=20"}, 30},
		{"restore-churn", []string{"additional_retention_ms=120000", "restore_batch_records=7"}, 12},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			sc, err := scenarios.Get(tc.scenario)
			require.NoError(t, err)
			for _, kv := range append([]string{"tasks=1", "stores_per_task=1", "close_failure_rate=1",
				"rebalance_every_steps=1", "rebalance_tasks=1"}, tc.set...) {
				require.NoError(t, sc.Set(kv))
			}
			require.NoError(t, sc.Validate())
			root := t.TempDir()
			topo, err := newTopology(sc, lifecycle.Fixed, false, sc.Seed, root)
			require.NoError(t, err)
			ctx := context.Background()
			require.NoError(t, topo.start(ctx))
			s := topo.tasks[0].stores[0]
			path := changelog.Path(root, 0, 0)
			window := sc.Store == scenarios.StoreWindow
			restores, skipped := 0, false
			for range tc.steps {
				n0, restored0 := topo.restoreLog.count(), topo.restored
				topo.step(ctx)
				require.NoError(t, topo.logErr)
				if topo.restoreLog.count() == n0 {
					continue
				}
				require.Equal(t, n0+1, topo.restoreLog.count(), "one store, one restore per step")
				restores++
				// What the restore should have read: the file at the step's end
				// (the restore came after the step's puts, at the rebalance).
				var want int64
				floor := topo.streamTime - sc.RetentionMs - sc.AdditionalRetentionMs
				require.NoError(t, changelog.Scan(path, func(e changelog.Entry) error {
					if !window || e.Ts >= floor {
						want++
					}
					return nil
				}))
				assert.Equal(t, want, topo.restored-restored0, "records replayed by the restore at step %d", topo.steps)
				logged, err := topo.restoreLog.since(n0)
				require.NoError(t, err)
				assert.Equal(t, want, logged[0].records, "the restore's own records, as logged, at step %d", topo.steps)
				skipped = skipped || want < s.offset
			}
			require.Positive(t, restores, "every close fails: every reopen restores")
			assert.Equal(t, window, skipped, "only a window store's restore skips records (past the topic's retention)")
			assert.Zero(t, topo.lost)
			assert.Zero(t, topo.taskErrors)

			recs, err := changelog.ReadAll(path)
			require.NoError(t, err)
			assert.Equal(t, s.offset, int64(len(recs)))
			assert.Equal(t, topo.records, int64(len(recs)), "one record per accepted put")
			vers := map[int64]bool{}
			for _, r := range recs {
				assert.False(t, vers[r.Ver], "version %d twice", r.Ver)
				vers[r.Ver] = true
			}
			bound := sc.KeySpread
			if window {
				bound = int((sc.RetentionMs+sc.SegmentInterval())/sc.StepMs+1) * sc.RecordsPerStep
			}
			assert.LessOrEqual(t, len(topo.latest), bound, "the transient view of the changelog is bounded")
			assert.Less(t, len(topo.latest), len(recs), "and smaller than the changelog")
			topo.Stop()
			rs := topo.restoreStats()
			assert.Equal(t, int64(restores), rs.Count)
			assert.Positive(t, rs.P50Ns, "the restores' durations are read back from their file")
		})
	}
}
