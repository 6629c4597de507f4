package lifecycle

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/linxGnu/grocksdb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mib = 1 << 20

// boundedDB is one DB opened with (or, for controls, without) a BoundedMemory
// applied. Its cleanup closes the DB before the options, once.
type boundedDB struct {
	db   *grocksdb.DB
	opts *grocksdb.Options
	tbl  *grocksdb.BlockBasedTableOptions
}

func openBoundedDB(t *testing.T, bm *BoundedMemory, dir string, writeBufferSize uint64) *boundedDB {
	t.Helper()
	opts := grocksdb.NewDefaultOptions()
	tbl := grocksdb.NewDefaultBlockBasedTableOptions()
	opts.SetCreateIfMissing(true)
	opts.SetWriteBufferSize(writeBufferSize)
	opts.SetMaxWriteBufferNumber(3)
	if bm != nil {
		require.NoError(t, bm.Apply(opts, tbl))
	} else {
		opts.SetBlockBasedTableFactory(tbl)
	}
	db, err := grocksdb.OpenDb(opts, dir)
	require.NoError(t, err)
	b := &boundedDB{db: db, opts: opts, tbl: tbl}
	t.Cleanup(b.close)
	return b
}

func (b *boundedDB) close() {
	if b.db != nil {
		b.db.Close()
		b.db = nil
		b.opts.Destroy()
		b.tbl.Destroy()
	}
}

// write puts n bytes of values (1 KiB each) without the WAL, as Kafka Streams
// writes (disableWAL = true).
func (b *boundedDB) write(t *testing.T, n int) {
	t.Helper()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	wo.DisableWAL(true)
	val := make([]byte, 1024)
	for i := range val {
		val[i] = byte(i * 31)
	}
	for i := 0; i < n/len(val); i++ {
		val[0], val[1] = byte(i), byte(i>>8)
		require.NoError(t, b.db.Put(wo, []byte(fmt.Sprintf("key-%09d", i)), val))
	}
}

func TestBoundedMemoryPointersReachLiveOptions(t *testing.T) {
	bm, err := NewBoundedMemory(16*mib, 4*mib)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, bm.Close()) })

	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	tbl := grocksdb.NewDefaultBlockBasedTableOptions()
	defer tbl.Destroy()

	// Values set through grocksdb's C API are read back through the shim's
	// view of the same objects: the pointers taken from grocksdb are live
	// rocksdb_options_t / rocksdb_block_based_table_options_t objects.
	opts.SetWriteBufferSize(12345678)
	tbl.SetBlockSize(8191)
	assert.EqualValues(t, 12345678, probeWriteBufferSize(opts))
	assert.EqualValues(t, 8191, probeBlockSize(tbl))

	assert.False(t, bm.probeUses(opts, tbl), "negative control: untouched options use no bounded objects")
	require.NoError(t, bm.Apply(opts, tbl))
	assert.True(t, bm.probeUses(opts, tbl))
	assert.EqualValues(t, 12345678, probeWriteBufferSize(opts), "Apply must not disturb other options")
}

func TestBoundedMemoryChargesMemtablesToCache(t *testing.T) {
	// Two DBs share one bounded memory; each writes 4 MiB into an 8 MiB
	// memtable (no flush). The write-buffer manager counts both memtables and
	// charges them to the cache as 256 KiB dummy entries. With a 64 MiB cache
	// RocksDB picks 64 shards of 1 MiB; under strict capacity a shard that
	// already holds four dummy entries refuses a fifth (RocksDB absorbs the
	// failed insert), so the strict charge can fall short of the memtables by a
	// few entries while the non-strict charge covers them in full.
	const unit = 256 << 10
	tests := []struct {
		name   string
		apply  bool
		strict bool
	}{
		{name: "strict", apply: true, strict: true},
		{name: "not-strict", apply: true, strict: false},
		{name: "control-not-applied", apply: false, strict: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bm, err := NewBoundedMemoryConfig(BoundedMemoryConfig{
				CacheBytes: 64 * mib, WriteBufferBytes: 32 * mib, StrictCapacity: tc.strict, HighPriPoolRatio: 0.1,
			})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, bm.Close()) })
			require.Equal(t, tc.strict, bm.StrictCapacity())
			require.EqualValues(t, 64*mib, bm.Capacity())

			var apply *BoundedMemory
			if tc.apply {
				apply = bm
			}
			dir := t.TempDir()
			a := openBoundedDB(t, apply, filepath.Join(dir, "a"), 8*mib)
			b := openBoundedDB(t, apply, filepath.Join(dir, "b"), 8*mib)
			before := bm.usage()

			a.write(t, 4*mib)
			b.write(t, 4*mib)
			after := bm.usage()
			t.Logf("before %+v after %+v", before, after)

			if !tc.apply {
				assert.Zero(t, after.wbm, "a DB without the write-buffer manager must not be counted by it")
				assert.Equal(t, before.cache, after.cache, "a DB without the shared cache must not charge it")
				return
			}
			capacity, ok := a.db.GetIntProperty("rocksdb.block-cache-capacity")
			require.True(t, ok)
			assert.EqualValues(t, bm.Capacity(), capacity, "the DB's block cache is the shared cache")

			// Both DBs' memtables (8 MiB of values plus skiplist overhead) are
			// counted by the one write-buffer manager...
			wbmRise := after.wbm - before.wbm
			assert.GreaterOrEqual(t, wbmRise, int64(8*mib))
			// ...and what it reserves is what the cache holds (the rest of the
			// cache's usage is the entries' metadata charge, under 1 KiB each).
			dummyRise := after.dummy - before.dummy
			assert.InDelta(t, dummyRise, after.cache-before.cache, float64(dummyRise/unit*1024))
			// The reservation covers the manager's current total, rounded up to
			// the next 256 KiB entry.
			assert.Less(t, after.dummy, after.wbm+unit)
			if tc.strict {
				assert.GreaterOrEqual(t, after.dummy, after.wbm*3/4, "strict shards refuse only a few entries")
			} else {
				assert.GreaterOrEqual(t, after.dummy, after.wbm, "non-strict: every memtable byte is charged")
			}
			assert.LessOrEqual(t, after.cache, bm.Capacity())
		})
	}
}

func TestBoundedMemoryStrictCapacityHoldsTheBound(t *testing.T) {
	// A 4 MiB cache and a write-buffer manager allowed 64 MiB: memtables grow
	// past the cache's capacity. With strict capacity the cache refuses the
	// dummy entries beyond it (RocksDB absorbs the failed insert); without it
	// the cache goes over its capacity. The second case is the control that
	// shows the first assertion can fail.
	tests := []struct {
		name   string
		strict bool
	}{
		{name: "strict", strict: true},
		{name: "control-not-strict", strict: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bm, err := NewBoundedMemoryConfig(BoundedMemoryConfig{
				CacheBytes: 4 * mib, WriteBufferBytes: 64 * mib, StrictCapacity: tc.strict, HighPriPoolRatio: 0.1,
			})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, bm.Close()) })
			require.Equal(t, tc.strict, bm.StrictCapacity())

			dir := t.TempDir()
			a := openBoundedDB(t, bm, filepath.Join(dir, "a"), 32*mib)
			b := openBoundedDB(t, bm, filepath.Join(dir, "b"), 32*mib)
			a.write(t, 6*mib)
			b.write(t, 6*mib)
			cache, pinned, wbm := bm.Usage()
			t.Logf("cache %d pinned %d wbm %d capacity %d", cache, pinned, wbm, bm.Capacity())

			require.Greater(t, wbm, bm.Capacity(), "precondition: memtables exceed the cache")
			if tc.strict {
				assert.LessOrEqual(t, cache, bm.Capacity())
			} else {
				assert.Greater(t, cache, bm.Capacity())
			}
		})
	}
}

func TestBoundedMemoryCloseIsIdempotent(t *testing.T) {
	bm, err := NewBoundedMemory(16*mib, 4*mib)
	require.NoError(t, err)
	db := openBoundedDB(t, bm, filepath.Join(t.TempDir(), "db"), 4*mib)
	db.write(t, 1*mib)
	cache, _, wbm := bm.Usage()
	require.Positive(t, cache)
	require.Positive(t, wbm)

	// Closing the bounded memory while a DB still uses it drops only its own
	// references: the DB keeps writing, then closes, and nothing aborts.
	require.NoError(t, bm.Close())
	require.NoError(t, bm.Close())
	cache, pinned, wbm := bm.Usage()
	assert.Zero(t, cache+pinned+wbm, "Usage after Close reports zeros")
	db.write(t, 1*mib)
	db.close()

	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	tbl := grocksdb.NewDefaultBlockBasedTableOptions()
	defer tbl.Destroy()
	assert.ErrorIs(t, bm.Apply(opts, tbl), ErrBoundedMemoryClosed)
}

func TestBoundedMemoryConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  BoundedMemoryConfig
		ok   bool
	}{
		{"docs-like", BoundedMemoryConfig{CacheBytes: 64 * mib, WriteBufferBytes: 16 * mib, HighPriPoolRatio: 0.1}, true},
		{"zero-cache", BoundedMemoryConfig{CacheBytes: 0, WriteBufferBytes: 16 * mib}, false},
		{"zero-write-buffer", BoundedMemoryConfig{CacheBytes: 64 * mib}, false},
		{"ratio-above-one", BoundedMemoryConfig{CacheBytes: 64 * mib, WriteBufferBytes: mib, HighPriPoolRatio: 1.5}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}
