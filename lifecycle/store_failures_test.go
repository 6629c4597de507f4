package lifecycle_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/spec"
)

// TestPinnedDBHoldsLock: without RocksJava's safety net a leaked handle keeps
// the DB open, so reopening its path fails with RocksDB's lock error instead of
// aborting.
func TestPinnedDBHoldsLock(t *testing.T) {
	dir := t.TempDir()
	env := lifecycle.NewEnv(nil)
	cfg := lifecycle.Config{Path: dir, Model: lifecycle.Leaky, Semantics: lifecycle.NoSafetyNet}
	s, err := lifecycle.Open(env, cfg)
	require.NoError(t, err)
	s.ArmCloseFault(lifecycle.Sticky)
	require.ErrorIs(t, s.Close(), lifecycle.ErrMarkerWrite)
	require.True(t, s.Pinned())
	_, err = lifecycle.Open(env, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lock")
	fig, err := env.RocksDBMemory()
	require.NoError(t, err)
	assert.Equal(t, 1, fig.OpenDBs, "the pinned DB is still open")
}

// TestRocksJavaCloseReleasesLateAndUnlocks is TestPinnedDBHoldsLock's
// counterpart under RocksJava's RocksDB.close(): the handles the 4.3.0
// accessor skipped are released late, the DB closes, and the path reopens.
func TestRocksJavaCloseReleasesLateAndUnlocks(t *testing.T) {
	dir := t.TempDir()
	env := lifecycle.NewEnv(nil)
	cfg := lifecycle.Config{Path: dir, Model: lifecycle.Leaky, Semantics: lifecycle.RocksJava}
	s, err := lifecycle.Open(env, cfg)
	require.NoError(t, err)
	handles := s.Handles()
	s.ArmCloseFault(lifecycle.Sticky)
	require.ErrorIs(t, s.Close(), lifecycle.ErrMarkerWrite)
	require.False(t, s.Pinned())
	for _, h := range handles {
		assert.False(t, h.Owning(), "%s released", h.Label())
		assert.True(t, h.ReleasedLate(), "%s released late, by the DB's close", h.Label())
	}
	fig, err := env.RocksDBMemory()
	require.NoError(t, err)
	assert.Zero(t, fig.OpenDBs, "the DB closed")
	s, err = lifecycle.Open(env, cfg)
	require.NoError(t, err, "nothing holds the path's LOCK")
	require.NoError(t, s.Close())
}

// TestNoAbortAtAnyFailureRate runs lifecycles on the same paths at every
// failure rate in every model, store layout and semantics; reaching the end
// without the process aborting is the assertion, along with the ledger's
// bookkeeping.
func TestNoAbortAtAnyFailureRate(t *testing.T) {
	for _, layout := range []lifecycle.Layout{lifecycle.KV, lifecycle.Migrating, lifecycle.Timestamped, lifecycle.MigratingWindowHeaders} {
		for _, m := range spec.Models() {
			for _, sem := range spec.SemanticsAll() {
				for _, kind := range []lifecycle.Fault{lifecycle.Transient, lifecycle.Sticky} {
					for _, rate := range []float64{0, 0.5, 1} {
						if lifecycle.ThreeCF(layout) && kind == lifecycle.Transient {
							continue // the dual accessor's paths are the same for both kinds
						}
						t.Run(fmt.Sprintf("%s/%s/%s/%s/%v", layout, m.Name, sem, kind, rate), func(t *testing.T) {
							inj, err := lifecycle.NewInjector(7, rate, kind, rate/2)
							require.NoError(t, err)
							env := lifecycle.NewEnv(inj)
							root := t.TempDir()
							for i := range 3 {
								if lifecycle.ThreeCF(layout) {
									seedOldFormat(t, filepath.Join(root, fmt.Sprint(i)))
								}
							}
							for i := range 6 {
								cfg := lifecycle.Config{Path: filepath.Join(root, fmt.Sprint(i%3)), Layout: layout,
									Model: m, Semantics: sem, ExactlyOnce: i%2 == 0}
								s, err := lifecycle.Open(env, cfg)
								if err != nil {
									continue // init failure, unclean status or a pinned lock: all returned errors
								}
								_ = s.Put([]byte("k"), []byte("v"))
								_ = s.Close()
							}
							c := env.Counts()
							assert.Equal(t, c.Opens.Load(), c.Lifecycles.Load())
							live := env.Ledger.Live()
							if !leaks[m.Name].handles || sem == lifecycle.RocksJava {
								assert.Zero(t, live[lifecycle.KindCFHandle])
								assert.Zero(t, c.Pinned.Load(), "no DB is pinned")
							}
							if leaks[m.Name].readOptions {
								assert.Equal(t, c.DBInstances.Load(), live[lifecycle.KindReadOptions], "one live default read options per DB instance")
							} else {
								assert.Zero(t, live[lifecycle.KindReadOptions])
							}
							if m == lifecycle.AllFixes {
								assert.Zero(t, env.Ledger.LiveTotal())
							}
						})
					}
				}
			}
		}
	}
}

func TestInjectorIsDeterministic(t *testing.T) {
	draw := func() []lifecycle.Fault {
		inj, err := lifecycle.NewInjector(42, 0.3, lifecycle.Sticky, 0)
		require.NoError(t, err)
		var out []lifecycle.Fault
		for range 100 {
			out = append(out, inj.NextClose())
		}
		return out
	}
	a, b := draw(), draw()
	assert.Equal(t, a, b)
	assert.Contains(t, a, lifecycle.Sticky)
	assert.Contains(t, a, lifecycle.NoFault)
	_, err := lifecycle.NewInjector(1, 1.5, lifecycle.Sticky, 0)
	assert.Error(t, err)
	_, err = lifecycle.NewInjector(1, 0, lifecycle.Sticky, -0.1)
	assert.Error(t, err)
}
