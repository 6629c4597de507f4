package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			topo.stop()
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
			assert.Greater(t, rs.SegmentLifecycles, rs.Count, "each restore from −1 creates and expires segments")
			_, err = os.Stat(filepath.Join(root, "task-0", "gen-0"))
			assert.NoError(t, err, "under RocksJava semantics the task is wiped in place, not moved aside")
		})
	}
}
