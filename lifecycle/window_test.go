package lifecycle_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
)

func TestSegmentInterval(t *testing.T) {
	for _, tc := range []struct{ retention, want int64 }{
		{120_000, 60_000}, {60_000, 60_000}, {600_000, 300_000}, {1_000, 60_000},
	} {
		assert.Equal(t, tc.want, lifecycle.SegmentInterval(tc.retention), "retention %d", tc.retention)
	}
}

func segmentDirs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestWindowSegmentsRollAndLeak drives stream time across five segments with
// three live: two segments expire (closed, directories deleted), three are
// closed by the store's close. Each segment is one lifecycle and repeats the
// model's leaks.
func TestWindowSegmentsRollAndLeak(t *testing.T) {
	stamps := []int64{0, 30_000, 60_000, 90_000, 120_000, 150_000, 180_000, 240_000}
	for _, m := range lifecycle.Models() {
		for _, p := range []path{cleanClose, transient, sticky} {
			t.Run(m.Name+"/"+string(p), func(t *testing.T) {
				dir := t.TempDir()
				env := lifecycle.NewEnv(nil)
				cfg := lifecycle.WindowConfig{Dir: dir, Name: "counts", RetentionMs: 120_000,
					Segment: lifecycle.Config{Model: m, ExactlyOnce: true}}
				w, err := lifecycle.OpenWindow(env, cfg, -1)
				require.NoError(t, err)
				w.ArmCloseFault(faultOf(p))
				for _, ts := range stamps {
					err := w.Put([]byte("k"), ts, fmt.Appendf(nil, "v%d", ts))
					if p == cleanClose {
						require.NoError(t, err)
					}
				}
				assert.Len(t, w.Segments(), 3, "retention/interval + 1 live segments")
				assert.Equal(t, []string{"counts.120000", "counts.180000", "counts.240000"},
					segmentDirs(t, filepath.Join(dir, "counts")), "expired segment directories are deleted")
				v, err := w.Fetch([]byte("k"), 240_000)
				require.NoError(t, err)
				assert.Equal(t, "v240000", string(v))
				_ = w.Close()

				c := env.Counts()
				assert.EqualValues(t, 5, c.Lifecycles.Load(), "five segments opened and closed")
				want := map[lifecycle.Kind]int64{}
				if leaks[m.Name].options {
					want[lifecycle.KindOptions] = 5
				}
				if p == sticky || p == transient {
					assert.EqualValues(t, 5, c.FailedCloses.Load())
					if leaks[m.Name].handles {
						want[lifecycle.KindDB] = 5
						want[lifecycle.KindCFHandle] = 10
					}
				}
				assert.Equal(t, want, env.Ledger.Live())
			})
		}
	}
}

func TestWindowReopenOpensLiveSegments(t *testing.T) {
	dir := t.TempDir()
	env := lifecycle.NewEnv(nil)
	cfg := lifecycle.WindowConfig{Dir: dir, Name: "w", RetentionMs: 120_000,
		Segment: lifecycle.Config{Model: lifecycle.Fixed, ExactlyOnce: true}}
	w, err := lifecycle.OpenWindow(env, cfg, -1)
	require.NoError(t, err)
	for ts := int64(0); ts <= 180_000; ts += 20_000 {
		require.NoError(t, w.Put([]byte("k"), ts, []byte("v")))
	}
	require.NoError(t, w.Commit(map[string]int64{"t-0": 10}))
	st := w.StreamTime()
	require.NoError(t, w.Close())

	w, err = lifecycle.OpenWindow(env, cfg, st)
	require.NoError(t, err)
	assert.Len(t, w.Segments(), 3)
	v, err := w.Fetch([]byte("k"), 180_000)
	require.NoError(t, err)
	assert.Equal(t, "v", string(v))
	require.NoError(t, w.Close())
	assert.Zero(t, env.Ledger.LiveTotal())
}

// TestWindowSegmentInitFailure: a segment whose open fails after its offsets
// options were created leaves them behind under the models without the
// options fix, and nothing under the others; the put reports RocksDB's error.
func TestWindowSegmentInitFailure(t *testing.T) {
	for _, m := range lifecycle.Models() {
		t.Run(m.Name, func(t *testing.T) {
			inj, err := lifecycle.NewInjector(3, 0, lifecycle.NoFault, 1)
			require.NoError(t, err)
			env := lifecycle.NewEnv(inj)
			w, err := lifecycle.OpenWindow(env, lifecycle.WindowConfig{Dir: t.TempDir(), Name: "w", RetentionMs: 120_000,
				Segment: lifecycle.Config{Model: m, ExactlyOnce: true}}, -1)
			require.NoError(t, err)
			err = w.Put([]byte("k"), 1_000, []byte("v"))
			require.ErrorIs(t, err, lifecycle.ErrInjectedInit)
			assert.Empty(t, w.Segments())
			want := map[lifecycle.Kind]int64{}
			if leaks[m.Name].options {
				want[lifecycle.KindOptions] = 1
			}
			assert.Equal(t, want, env.Ledger.Live())
			assert.EqualValues(t, 1, env.Counts().InitFailures.Load())
			require.NoError(t, w.Close())
		})
	}
}
