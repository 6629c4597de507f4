package lifecycle_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/linxGnu/grocksdb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/spec"
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
	// Plain segments (KV), the DSL's timestamped segments and the migrating
	// window store with headers' segments leak alike: in regular mode the two
	// three-CF layouts hold two handles per segment, as KV does.
	for _, layout := range []lifecycle.Layout{lifecycle.KV, lifecycle.Timestamped, lifecycle.MigratingWindowHeaders} {
		for _, m := range spec.Models() {
			for _, sem := range spec.SemanticsAll() {
				for _, p := range []path{cleanClose, transient, sticky} {
					t.Run(string(layout)+"/"+m.Name+"/"+string(sem)+"/"+string(p), func(t *testing.T) {
						testWindowSegmentsRollAndLeak(t, layout, m, sem, p, stamps)
					})
				}
			}
		}
	}
}

// TestTimestampedSegmentsColumnFamilies: a timestamped segment
// (TimestampedSegments.getOrCreateSegment → RocksDBTimestampedStore.openRocksDB)
// creates three column families — DEFAULT, keyValueWithTimestamp and offsets —
// and, in regular mode, closes the DEFAULT handle right after open, so each
// live segment holds two handles: offsets and the timestamped data CF. The
// migrating window store with headers does the same with
// windowKeyValueWithHeaders.
func TestTimestampedSegmentsColumnFamilies(t *testing.T) {
	tests := []struct {
		layout lifecycle.Layout
		dataCF string
	}{
		{lifecycle.Timestamped, "keyValueWithTimestamp"},
		{lifecycle.MigratingWindowHeaders, "windowKeyValueWithHeaders"},
	}
	for _, tc := range tests {
		t.Run(string(tc.layout), func(t *testing.T) {
			env := lifecycle.NewEnv(nil)
			cfg := lifecycle.WindowConfig{Dir: t.TempDir(), Name: "w", RetentionMs: 120_000,
				Segment: lifecycle.Config{Layout: tc.layout, Model: lifecycle.AllFixes}}
			w, err := lifecycle.OpenWindow(env, cfg, -1)
			require.NoError(t, err)
			for ts := int64(0); ts <= 120_000; ts += 60_000 {
				require.NoError(t, w.Put([]byte("k"), ts, []byte("v")))
			}
			segs := w.Segments()
			require.Len(t, segs, 3)
			paths := make([]string, 0, len(segs))
			for _, s := range segs {
				assert.False(t, s.Dual(), "a new segment opens in regular mode")
				labels := []string{}
				for _, h := range s.Handles() {
					labels = append(labels, h.Label())
				}
				assert.Equal(t, []string{"cf:offsets", "cf:" + tc.dataCF}, labels, "two handles held")
				paths = append(paths, s.Path())
			}
			assert.EqualValues(t, 2*len(segs), env.Ledger.Live()[lifecycle.KindCFHandle],
				"the DEFAULT handle was released at open")
			require.NoError(t, w.Close())
			assert.Zero(t, env.Ledger.LiveTotal())
			opts := grocksdb.NewDefaultOptions()
			defer opts.Destroy()
			for _, p := range paths {
				names, err := grocksdb.ListColumnFamilies(opts, p)
				require.NoError(t, err)
				sort.Strings(names)
				want := []string{"default", "offsets", tc.dataCF}
				sort.Strings(want)
				assert.Equal(t, want, names, "three column families exist on disk")
			}
		})
	}
}

// testWindowSegmentsRollAndLeak is one case of TestWindowSegmentsRollAndLeak.
func testWindowSegmentsRollAndLeak(t *testing.T, layout lifecycle.Layout, m lifecycle.Model, sem lifecycle.Semantics, p path, stamps []int64) {
	dir := t.TempDir()
	env := lifecycle.NewEnv(nil)
	cfg := lifecycle.WindowConfig{Dir: dir, Name: "counts", RetentionMs: 120_000,
		Segment: lifecycle.Config{Layout: layout, Model: m, Semantics: sem, ExactlyOnce: true}}
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
	want, wantLate := map[lifecycle.Kind]int64{}, int64(0)
	if leaks[m.Name].options {
		want[lifecycle.KindOptions] = 5
	}
	if leaks[m.Name].readOptions {
		want[lifecycle.KindReadOptions] = 5 // one per segment instance
	}
	if p == sticky || p == transient {
		assert.EqualValues(t, 5, c.FailedCloses.Load())
		if leaks[m.Name].handles && sem == lifecycle.NoSafetyNet {
			want[lifecycle.KindDB] = 5
			want[lifecycle.KindCFHandle] = 10
		}
		if leaks[m.Name].handles && sem == lifecycle.RocksJava {
			wantLate = 10
		}
	}
	assert.Equal(t, want, env.Ledger.Live())
	assert.Equal(t, wantLate, env.Ledger.ReleasedLate()[lifecycle.KindCFHandle], "handles released late by the DB's close")
	assert.Equal(t, want[lifecycle.KindDB], c.Pinned.Load(), "pinned DBs")
}

func TestWindowReopenOpensLiveSegments(t *testing.T) {
	dir := t.TempDir()
	env := lifecycle.NewEnv(nil)
	cfg := lifecycle.WindowConfig{Dir: dir, Name: "w", RetentionMs: 120_000,
		Segment: lifecycle.Config{Model: lifecycle.AllFixes, ExactlyOnce: true}}
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
	for _, m := range spec.Models() {
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

// TestWindowNoAbortAtAnyFailureRate rolls window segments at every close and
// init failure rate, in every model and semantics: no run aborts, and the
// ledger holds one default read options per segment instance under the
// models without the read-options fix.
func TestWindowNoAbortAtAnyFailureRate(t *testing.T) {
	// Plain segments, DSL timestamped segments and the migrating window store
	// with headers' segments.
	for _, layout := range []lifecycle.Layout{lifecycle.KV, lifecycle.Timestamped, lifecycle.MigratingWindowHeaders} {
		for _, m := range spec.Models() {
			for _, sem := range spec.SemanticsAll() {
				for _, rate := range []float64{0, 0.5, 1} {
					t.Run(fmt.Sprintf("%s/%s/%s/%v", layout, m.Name, sem, rate), func(t *testing.T) {
						inj, err := lifecycle.NewInjector(11, rate, lifecycle.Sticky, rate/2)
						require.NoError(t, err)
						env := lifecycle.NewEnv(inj)
						cfg := lifecycle.WindowConfig{Dir: t.TempDir(), Name: "w", RetentionMs: 120_000,
							Segment: lifecycle.Config{Layout: layout, Model: m, Semantics: sem, ExactlyOnce: true}}
						w, err := lifecycle.OpenWindow(env, cfg, -1)
						require.NoError(t, err)
						for ts := int64(0); ts <= 240_000; ts += 60_000 {
							_ = w.Put([]byte("k"), ts, []byte("v")) // errors are returned, never aborts
						}
						_ = w.Close()
						c := env.Counts()
						assert.Equal(t, c.Opens.Load(), c.Lifecycles.Load())
						live := env.Ledger.Live()
						if leaks[m.Name].readOptions {
							assert.Equal(t, c.DBInstances.Load(), live[lifecycle.KindReadOptions])
						} else {
							assert.Zero(t, live[lifecycle.KindReadOptions])
						}
						if !leaks[m.Name].handles || sem == lifecycle.RocksJava {
							assert.Zero(t, c.Pinned.Load())
							assert.Zero(t, live[lifecycle.KindCFHandle])
						}
					})
				}
			}
		}
	}
}

// TestVersionedNoAbortAtAnyFailureRate: logical segments over one physical
// store, at every close failure rate, in every model and semantics.
func TestVersionedNoAbortAtAnyFailureRate(t *testing.T) {
	for _, m := range spec.Models() {
		for _, sem := range spec.SemanticsAll() {
			for _, rate := range []float64{0, 0.5, 1} {
				t.Run(fmt.Sprintf("%s/%s/%v", m.Name, sem, rate), func(t *testing.T) {
					inj, err := lifecycle.NewInjector(13, rate, lifecycle.Transient, 0)
					require.NoError(t, err)
					env := lifecycle.NewEnv(inj)
					dir := filepath.Join(t.TempDir(), "v")
					for range 2 { // reopen the same physical store
						v, err := lifecycle.OpenVersionedSegments(env, lifecycle.Config{Path: dir,
							Model: m, Semantics: sem}, 100, 10)
						if err != nil {
							// Only a DB pinned by the previous close holds the path.
							require.Positive(t, env.Counts().Pinned.Load(), "%v", err)
							require.Contains(t, err.Error(), "lock hold by current process")
							continue
						}
						for st := int64(0); st <= 300; st += 100 {
							ok, err := v.GetOrCreateSegmentIfLive(st/10, st)
							require.NoError(t, err)
							require.True(t, ok)
							require.NoError(t, v.Put(st/10, []byte("k"), []byte("v")))
						}
						assert.Equal(t, []int64{20, 30}, v.Segments(), "segments 20 and 30 are live at stream time 300")
						_ = v.Close()
					}
					c := env.Counts()
					assert.Equal(t, c.Opens.Load(), c.Lifecycles.Load(), "one physical lifecycle per store open")
					if leaks[m.Name].readOptions {
						assert.Equal(t, c.DBInstances.Load(), env.Ledger.Live()[lifecycle.KindReadOptions])
					} else {
						assert.Zero(t, env.Ledger.Live()[lifecycle.KindReadOptions])
					}
				})
			}
		}
	}
}

// TestWindowRestoreFromStreamTimeMinusOne replays a changelog of 20 segment
// intervals (one record per 10 s, 60 s segments, 120 s retention) into a
// store opened at stream time −1. With restore batches of 3 records (each
// spanning 30 s, less than the retention) every interval's segment is created
// and all but the live ones expire during the restore: 20 created, 17 closed.
// With one batch of every record, stream time jumps to the end first, so only
// the live segments are created and none expires. A control: the records of
// the live segments read back either way.
func TestWindowRestoreFromStreamTimeMinusOne(t *testing.T) {
	const interval, retention = 60_000, 120_000
	var recs []lifecycle.WindowRecord
	for ts := int64(0); ts < 20*interval; ts += 10_000 {
		recs = append(recs, lifecycle.WindowRecord{Key: []byte("k"), Ts: ts, Value: fmt.Appendf(nil, "v%d", ts)})
	}
	for _, tc := range []struct {
		batch              int
		created, lifecycle int64
	}{{3, 20, 17}, {len(recs), 3, 0}} {
		t.Run(fmt.Sprintf("batch=%d", tc.batch), func(t *testing.T) {
			env := lifecycle.NewEnv(nil)
			w, err := lifecycle.OpenWindow(env, lifecycle.WindowConfig{Dir: t.TempDir(), Name: "w",
				RetentionMs: retention, SegmentIntervalMs: interval,
				Segment: lifecycle.Config{Model: lifecycle.Leaky}}, -1)
			require.NoError(t, err)
			for i := 0; i < len(recs); i += tc.batch {
				require.NoError(t, w.RestoreBatch(recs[i:min(i+tc.batch, len(recs))]))
			}
			assert.Equal(t, tc.created, env.Counts().Opens.Load(), "segments created by the restore")
			assert.Equal(t, tc.lifecycle, env.Counts().Lifecycles.Load(), "segments expired by the restore")
			last := recs[len(recs)-1].Ts
			v, err := w.Fetch([]byte("k"), last)
			require.NoError(t, err)
			assert.Equal(t, fmt.Sprintf("v%d", last), string(v))
			require.NoError(t, w.Close())
		})
	}
}
