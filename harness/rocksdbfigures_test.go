package harness

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/schema"
)

// TestRocksDBFiguresOnABudget: with n real stores open, RocksDB's own figures
// are taken on the first sample and then on every ⌈n / 2⌉-th; the others
// carry Unavailable bytes and the open DB count. With none open, every sample
// takes them.
func TestRocksDBFiguresOnABudget(t *testing.T) {
	env := lifecycle.NewEnv(nil)
	var f rocksdbFigures
	for range 3 {
		got := f.take(env)
		assert.Equal(t, schema.RocksDBMemory{}, got, "nothing open: taken, all zero")
	}
	root := t.TempDir()
	const n = 6 // every 3rd sample
	for i := range n {
		st, err := lifecycle.Open(env, lifecycle.Config{Path: filepath.Join(root, fmt.Sprintf("s%d", i)), Model: lifecycle.Fixed})
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
	}
	require.Equal(t, n, env.OpenDBs())
	f = rocksdbFigures{}
	var taken []int
	for i := range 9 {
		got := f.take(env)
		assert.Equal(t, n, got.OpenDBs, "sample %d counts the open DBs", i)
		if got.MemTables != schema.Unavailable {
			assert.Positive(t, got.MemTables, "sample %d: RocksDB's memtable figure", i)
			taken = append(taken, i)
		} else {
			assert.Equal(t, schema.Unavailable, got.TableReaders)
			assert.Equal(t, schema.Unavailable, got.BlockCache)
		}
	}
	assert.Equal(t, []int{0, 3, 6}, taken)
}
