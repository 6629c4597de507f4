package lifecycle_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/spec"
)

type path string

const (
	cleanClose path = "clean-close"
	transient  path = "transient-marker-failure"
	sticky     path = "sticky-marker-failure"
	initFail   path = "init-failure"
)

var allPaths = []path{cleanClose, transient, sticky, initFail}

func faultOf(p path) lifecycle.Fault {
	switch p {
	case transient:
		return lifecycle.Transient
	case sticky:
		return lifecycle.Sticky
	}
	return lifecycle.NoFault
}

// leaks states, per model name and independently of the model's fix set, what
// the model is known to leak: the offsets options (leak 1), the handles on a
// failed marker write (leak 2) and the DB's default read options (leak 3).
var leaks = map[string]struct{ options, handles, readOptions bool }{
	"leaky":            {options: true, handles: true, readOptions: true},
	"fixed":            {options: false, handles: false, readOptions: true},
	"options-fix":      {options: false, handles: true, readOptions: true},
	"finally-fix":      {options: true, handles: false, readOptions: true},
	"read-options-fix": {options: true, handles: true, readOptions: false},
	"all-fixes":        {options: false, handles: false, readOptions: false},
}

func TestLeakTableCoversEveryModel(t *testing.T) {
	for _, m := range spec.Models() {
		l, ok := leaks[m.Name]
		require.True(t, ok, m.Name)
		assert.Equal(t, !l.options, m.Has(spec.FixOffsetsOptions), m.Name)
		assert.Equal(t, !l.handles, m.Has(spec.FixFinally), m.Name)
		assert.Equal(t, !l.readOptions, m.Has(spec.FixReadOptions), m.Name)
	}
}

// expectedLeak is what each model leaves live in the ledger after one store
// close on a path, for a store with nHandles column-family handles.
func expectedLeak(m lifecycle.Model, sem lifecycle.Semantics, p path, nHandles int64) (live map[lifecycle.Kind]int64, late map[lifecycle.Kind]int64) {
	live, late = map[lifecycle.Kind]int64{}, map[lifecycle.Kind]int64{}
	if leaks[m.Name].options {
		live[lifecycle.KindOptions] = 1
	}
	if p != initFail && leaks[m.Name].readOptions {
		// The injected init failure fails RocksDB's open itself: no DB
		// instance, so no default read options.
		live[lifecycle.KindReadOptions] = 1
	}
	if (p == transient || p == sticky) && leaks[m.Name].handles {
		if sem == lifecycle.RocksJava {
			late[lifecycle.KindCFHandle] = nHandles
		} else {
			live[lifecycle.KindDB] = 1
			live[lifecycle.KindCFHandle] = nHandles
		}
	}
	return live, late
}

// seedOldFormat writes records into the plain ("default") CF of a store at
// dir, so that opening it as a migrating store uses the dual accessor.
func seedOldFormat(t *testing.T, dir string) {
	t.Helper()
	env := lifecycle.NewEnv(nil)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: dir, Model: lifecycle.AllFixes})
	require.NoError(t, err)
	for i := range 10 {
		require.NoError(t, s.Put(fmt.Appendf(nil, "old-%d", i), []byte("v-old")))
	}
	require.NoError(t, s.Close())
	require.Zero(t, env.Ledger.LiveTotal())
}

func TestStoreOwnershipMatrix(t *testing.T) {
	layouts := []lifecycle.Layout{lifecycle.KV, lifecycle.Migrating, lifecycle.Timestamped, lifecycle.MigratingWindowHeaders}
	for _, layout := range layouts {
		for _, m := range spec.Models() {
			for _, sem := range spec.SemanticsAll() {
				for _, p := range allPaths {
					name := fmt.Sprintf("%s/%s/%s/%s", layout, m.Name, sem, p)
					t.Run(name, func(t *testing.T) {
						dir := filepath.Join(t.TempDir(), "store")
						nHandles := int64(2)
						if lifecycle.ThreeCF(layout) {
							seedOldFormat(t, dir)
							nHandles = 3
						}
						closeRate, initRate := 0.0, 0.0
						if p == initFail {
							initRate = 1
						}
						inj, err := lifecycle.NewInjector(1, closeRate, lifecycle.Transient, initRate)
						require.NoError(t, err)
						env := lifecycle.NewEnv(inj)
						cfg := lifecycle.Config{Path: dir, Layout: layout, Model: m, Semantics: sem, ExactlyOnce: true}

						s, err := lifecycle.Open(env, cfg)
						if p == initFail {
							require.Error(t, err)
							assert.ErrorIs(t, err, lifecycle.ErrInjectedInit)
							assert.Regexp(t, `Invalid argument`, err.Error(), "the init failure is RocksDB's own error")
							want, _ := expectedLeak(m, sem, p, nHandles)
							assert.Equal(t, want, env.Ledger.Live())
							assert.EqualValues(t, 1, env.Counts().InitFailures.Load())
							return
						}
						require.NoError(t, err)
						assert.Equal(t, lifecycle.ThreeCF(layout), s.Dual(), "dual accessor iff old CF holds data")
						natives := s.Natives()
						for _, n := range natives {
							assert.True(t, n.Owning(), "%s owns its C object while the store is open", n.Label())
						}
						offsets := s.OffsetsOptions()
						require.NotNil(t, offsets)
						require.NoError(t, s.Put([]byte("k"), []byte("v")))

						s.ArmCloseFault(faultOf(p))
						err = s.Close()
						if p == cleanClose {
							assert.NoError(t, err)
						} else {
							assert.ErrorIs(t, err, lifecycle.ErrMarkerWrite, "the marker write was attempted and failed")
						}
						wantLive, wantLate := expectedLeak(m, sem, p, nHandles)
						assert.Equal(t, wantLive, env.Ledger.Live(), "live natives after close")
						gotLate := env.Ledger.ReleasedLate()
						assert.Equal(t, wantLate[lifecycle.KindCFHandle], gotLate[lifecycle.KindCFHandle], "handles released late")
						assert.Equal(t, leaks[m.Name].options, offsets.Owning(), "offsets options still own their C object")
						for _, n := range natives {
							if n.Kind() == lifecycle.KindCFHandle {
								skipped := (p == transient || p == sticky) && leaks[m.Name].handles
								assert.Equal(t, skipped && sem == lifecycle.NoSafetyNet, n.Owning(), "handle %s", n.Label())
								assert.Equal(t, skipped && sem == lifecycle.RocksJava, n.ReleasedLate(), "handle %s released late", n.Label())
							}
						}
						assert.Equal(t, wantLive[lifecycle.KindDB] == 1, s.Pinned())
						assert.NoError(t, s.Close(), "a second close does nothing")
						assert.Equal(t, wantLive, env.Ledger.Live(), "a second close releases nothing twice")
					})
				}
			}
		}
	}
}

// TestOffsetsBlockCache: no Kafka version calls setNoBlockCache on the offsets
// CF's options (docs/kafka-versions.md, read from the jars), so under every
// model the offsets CF has the implicit LRU cache of the default table
// factory, 8 MiB on RocksDB 7.8.3 (32 MiB on rocksdbjni 10.1.3), while the
// store is open. What the fix changes is who releases it (see
// TestOffsetsOptionsReleasedWithTheirCache).
func TestOffsetsBlockCache(t *testing.T) {
	for _, m := range spec.Models() {
		t.Run(m.Name, func(t *testing.T) {
			env := lifecycle.NewEnv(nil)
			s, err := lifecycle.Open(env, lifecycle.Config{Path: t.TempDir(), Model: m})
			require.NoError(t, err)
			defer s.Close()
			c, ok := s.OffsetsBlockCacheCapacity()
			assert.True(t, ok, "the offsets CF has a block cache")
			assert.Equal(t, uint64(8388608), c, "the implicit cache of RocksDB 7.8.3's default table factory")
		})
	}
}

func TestStatusProtocol(t *testing.T) {
	dir := t.TempDir()
	env := lifecycle.NewEnv(nil)
	cfg := lifecycle.Config{Path: dir, Model: lifecycle.AllFixes, ExactlyOnce: true}

	s, err := lifecycle.Open(env, cfg)
	require.NoError(t, err)
	st, err := s.Status()
	require.NoError(t, err)
	assert.Equal(t, lifecycle.StatusOpen, st, "open writes status 1")
	require.NoError(t, s.Close())
	st, ok, err := lifecycle.ReadStatus(env, dir)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, lifecycle.StatusClosed, st, "close writes status 0")

	// An unclean close: the marker write fails, status stays 1.
	s, err = lifecycle.Open(env, cfg)
	require.NoError(t, err)
	s.ArmCloseFault(lifecycle.Transient)
	require.ErrorIs(t, s.Close(), lifecycle.ErrMarkerWrite)
	st, _, err = lifecycle.ReadStatus(env, dir)
	require.NoError(t, err)
	assert.Equal(t, lifecycle.StatusOpen, st)

	_, err = lifecycle.Open(env, cfg)
	assert.ErrorIs(t, err, lifecycle.ErrUncleanStatus, "unclean reopen is rejected under exactly-once")
	assert.Zero(t, env.Ledger.LiveTotal(), "a rejected open releases everything under all-fixes")

	cfg.ExactlyOnce = false
	s, err = lifecycle.Open(env, cfg)
	require.NoError(t, err, "unclean reopen is accepted without exactly-once")
	require.NoError(t, s.Close())
	assert.Zero(t, env.Ledger.LiveTotal())
}

func TestNothingLostUnderFixed(t *testing.T) {
	// Data survives every close path (Kafka 4.3.1's fixes).
	for _, layout := range []lifecycle.Layout{lifecycle.KV, lifecycle.Migrating} {
		for _, f := range []lifecycle.Fault{lifecycle.NoFault, lifecycle.Transient, lifecycle.Sticky} {
			t.Run(fmt.Sprintf("%s/%s", layout, f), func(t *testing.T) {
				dir := t.TempDir()
				if layout == lifecycle.Migrating {
					seedOldFormat(t, dir)
				}
				env := lifecycle.NewEnv(nil)
				cfg := lifecycle.Config{Path: dir, Layout: layout, Model: lifecycle.Fixed}
				s, err := lifecycle.Open(env, cfg)
				require.NoError(t, err)
				const n = 500
				for i := range n {
					require.NoError(t, s.Put(fmt.Appendf(nil, "key-%04d", i), fmt.Appendf(nil, "value-%d", i)))
				}
				require.NoError(t, s.Commit(map[string]int64{"topic-0": n}))
				s.ArmCloseFault(f)
				err = s.Close()
				if f != lifecycle.NoFault {
					require.ErrorIs(t, err, lifecycle.ErrMarkerWrite)
				}
				s, err = lifecycle.Open(env, cfg)
				require.NoError(t, err)
				defer s.Close()
				off, ok, err := s.Offset("topic-0")
				require.NoError(t, err)
				if f == lifecycle.Sticky {
					// Kafka 4.3 commits without flushing: a DB left in a failed
					// state cannot flush at close, so the reopened store holds
					// what was last flushed (nothing here), its committed offset
					// included: the offset never claims records the store lost,
					// and Kafka restores from it.
					assert.False(t, ok, "the unflushed offset is gone with the unflushed records")
					return
				}
				for i := range n {
					v, err := s.Get(fmt.Appendf(nil, "key-%04d", i))
					require.NoError(t, err)
					assert.Equal(t, fmt.Sprintf("value-%d", i), string(v))
				}
				assert.True(t, ok)
				assert.EqualValues(t, n, off)
				if layout == lifecycle.Migrating {
					for i := range 10 {
						v, err := s.Get(fmt.Appendf(nil, "old-%d", i))
						require.NoError(t, err)
						assert.Equal(t, append(bytes.Repeat([]byte{0xff}, 8), "v-old"...), v,
							"old-format records are read through the dual accessor, converted to the timestamped format")
					}
				}
			})
		}
	}
}

func TestRocksDBVersionFromLibrary(t *testing.T) {
	v, err := lifecycle.RocksDBVersion(t.TempDir())
	require.NoError(t, err)
	assert.Regexp(t, `^7\.8\.\d+$`, v, "Debian 12 ships RocksDB 7.8.x")
}
