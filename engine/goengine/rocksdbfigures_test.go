package goengine

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/schema"
)

// openStores opens n real stores in env under root/name-i, each holding the
// same record (a memtable with data), closed at the end of the test.
func openStores(t *testing.T, env *lifecycle.Env, root, name string, n int) []*lifecycle.Store {
	t.Helper()
	var out []*lifecycle.Store
	for i := range n {
		path := filepath.Join(root, fmt.Sprintf("%s-%d", name, i))
		st, err := lifecycle.Open(env, lifecycle.Config{Path: path, Model: lifecycle.Fixed})
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
		require.NoError(t, st.Put([]byte("k"), make([]byte, 1000)))
		out = append(out, st)
	}
	return out
}

// TestRocksDBFiguresRoundRobin: with n real stores open, only every
// RocksDBFiguresEvery-th sample (a reading turn) reads any, at most
// RocksDBFiguresDBsPerSample of them; the sample that completes a round
// (the ⌈n / RocksDBFiguresDBsPerSample⌉-th turn) carries the sums over all n,
// equal to RocksDB's figures for all of them at once, and the others carry
// Unavailable bytes and the open DB count. With none open, every turn
// completes a round with zeros.
func TestRocksDBFiguresRoundRobin(t *testing.T) {
	const e = RocksDBFiguresEvery
	env := lifecycle.NewEnv(nil)
	var f rocksdbFigures
	for i := range 3 * e {
		want := schema.RocksDBMemory{} // nothing open: a turn completes a round of none, all zero
		if i%e != 0 {
			want = unavailableFigures(0)
		}
		assert.Equal(t, want, f.take(env), "sample %d", i)
	}
	const n = 6
	openStores(t, env, t.TempDir(), "s", n)
	require.Equal(t, n, env.OpenDBs())
	all, err := env.RocksDBMemory()
	require.NoError(t, err)
	require.Positive(t, all.MemTables)
	turns := (n + RocksDBFiguresDBsPerSample - 1) / RocksDBFiguresDBsPerSample // a round's turns
	f = rocksdbFigures{}
	var taken []int
	for i := range 3 * turns * e {
		got := f.take(env)
		assert.Equal(t, n, got.OpenDBs, "sample %d counts the open DBs", i)
		if got.MemTables == schema.Unavailable {
			assert.Equal(t, schema.Unavailable, got.TableReaders)
			assert.Equal(t, schema.Unavailable, got.BlockCache)
			continue
		}
		taken = append(taken, i)
		assert.Equal(t, schema.RocksDBMemory{MemTables: int64(all.MemTables), TableReaders: int64(all.TableReaders),
			BlockCache: int64(all.BlockCache), OpenDBs: n}, got, "sample %d: the round's sums over all %d DBs", i, n)
	}
	assert.Equal(t, []int{(turns - 1) * e, (2*turns - 1) * e, (3*turns - 1) * e}, taken,
		"each round completes on its last turn")

	// The end sample reads all of them at once, mid-round, and starts a new
	// round, whose first turn is the next sample.
	f = rocksdbFigures{}
	require.Equal(t, schema.Unavailable, f.take(env).MemTables)
	assert.Equal(t, schema.RocksDBMemory{MemTables: int64(all.MemTables), TableReaders: int64(all.TableReaders),
		BlockCache: int64(all.BlockCache), OpenDBs: n}, f.all(env))
	assert.Equal(t, rocksdbFigures{}, f, "a new round")
}

// TestRocksDBFiguresRoundWithChurn: a round covers the DBs open when it
// starts: one closed before its turn is left out, and those opened during the
// round wait for the next, so that a round ends however fast stores churn.
func TestRocksDBFiguresRoundWithChurn(t *testing.T) {
	env := lifecycle.NewEnv(nil)
	root := t.TempDir()
	require.Less(t, RocksDBFiguresDBsPerSample, 4, "the first sample must leave store 3 unread")
	stores := openStores(t, env, root, "old", 4)
	one, err := env.RocksDBMemory()
	require.NoError(t, err)
	perDB := one.MemTables / 4 // the stores hold the same data
	require.Equal(t, 4*perDB, one.MemTables)

	var f rocksdbFigures
	got := f.take(env) // reads store 0
	require.Equal(t, schema.Unavailable, got.MemTables)
	require.NoError(t, stores[3].Close()) // closed before its turn
	rounds, samples := 0, 1
	for i := 0; i < 10*RocksDBFiguresEvery && rounds == 0; i++ {
		openStores(t, env, root, fmt.Sprintf("new%d", i), 1) // a store opened at every sample
		got = f.take(env)
		samples++
		if got.MemTables != schema.Unavailable {
			rounds++
		}
	}
	require.Equal(t, 1, rounds, "the round ends under churn")
	assert.LessOrEqual(t, samples, RocksDBFiguresEvery*((4+RocksDBFiguresDBsPerSample-1)/RocksDBFiguresDBsPerSample))
	assert.Equal(t, int64(3*perDB), got.MemTables, "stores 0-2, once each; none of the new ones")
	assert.Equal(t, env.OpenDBs(), got.OpenDBs)

	// The next round covers the new ones.
	open := env.OpenDBs()
	for i := 0; ; i++ {
		require.Less(t, i, open*RocksDBFiguresEvery, "the next round ends within %d samples", open*RocksDBFiguresEvery)
		if got = f.take(env); got.MemTables != schema.Unavailable {
			break
		}
	}
	assert.Equal(t, int64(open)*int64(perDB), got.MemTables, "every DB open at the round's start")
}
