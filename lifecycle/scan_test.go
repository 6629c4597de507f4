package lifecycle_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
)

// blockCacheGrowth writes ten records to a kv store, flushes them to an SST
// file, and returns the environment's block-cache usage after Scan (or, for
// the negative control, after nothing) minus before, and the records Scan
// read.
func blockCacheGrowth(t *testing.T, scan bool) (growth int64, read int) {
	t.Helper()
	env := lifecycle.NewEnv(nil)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: t.TempDir(), Model: lifecycle.Fixed})
	require.NoError(t, err)
	defer s.Close()
	for i := range 10 {
		require.NoError(t, s.Put(fmt.Appendf(nil, "key-%06d", i), make([]byte, 100)))
	}
	require.NoError(t, s.Flush())
	before, err := env.RocksDBMemory()
	require.NoError(t, err)
	if scan {
		read, err = s.Scan()
		require.NoError(t, err)
		require.Equal(t, int64(1), env.Ledger.Created()[lifecycle.KindIterator], "one iterator per data CF")
		require.Zero(t, env.Ledger.Live()[lifecycle.KindIterator], "the scan closes its iterator")
	}
	after, err := env.RocksDBMemory()
	require.NoError(t, err)
	return int64(after.BlockCache) - int64(before.BlockCache), read
}

// TestScanFillsTheBlockCache: a range read of records in an SST file reads
// every record and caches its data block; with no read (the negative control)
// the block cache stays as it was.
func TestScanFillsTheBlockCache(t *testing.T) {
	growth, read := blockCacheGrowth(t, true)
	require.Equal(t, 10, read)
	require.Positive(t, growth, "the scanned data block is cached")
	growth, _ = blockCacheGrowth(t, false)
	require.Zero(t, growth, "no read, no block cached")
}

// TestScanClosedStore: Scan of a closed store is ErrClosed.
func TestScanClosedStore(t *testing.T) {
	env := lifecycle.NewEnv(nil)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: t.TempDir(), Model: lifecycle.Fixed})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = s.Scan()
	require.ErrorIs(t, err, lifecycle.ErrClosed)
	require.Zero(t, env.Ledger.Created()[lifecycle.KindIterator], "no iterator on a closed store")
}
