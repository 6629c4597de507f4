package harness

import (
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/schema"
)

// RocksDBFiguresDBsPerSample is the rule for taking RocksDB's own per-DB
// figures (GetApproximateMemoryUsageByType, whose cost grows with the open
// DBs: about 4 µs per DB here) less often as more DBs are open: with n DBs
// open they are taken on every ⌈n / RocksDBFiguresDBsPerSample⌉-th sample
// (every sample up to RocksDBFiguresDBsPerSample open DBs, and the first
// sample always), so that their cost per sample stays about that of
// RocksDBFiguresDBsPerSample DBs whatever the number open. A sample they are
// not taken on has schema.Unavailable (-1) in the byte fields; OpenDBs is
// counted on every sample (it is cheap, and the resident cost per DB needs it).
const RocksDBFiguresDBsPerSample = 2

// rocksdbFigures applies the rule to one child's samples; the zero value
// takes the figures on the first sample.
type rocksdbFigures struct {
	taken bool // the figures were taken on an earlier sample
	since int  // samples since they were last taken
}

// take returns the figures for this sample: RocksDB's own when due, else
// Unavailable bytes with the open DB count.
func (f *rocksdbFigures) take(env *lifecycle.Env) schema.RocksDBMemory {
	open := env.OpenDBs()
	every := max(1, (open+RocksDBFiguresDBsPerSample-1)/RocksDBFiguresDBsPerSample)
	if f.taken && f.since+1 < every {
		f.since++
		return schema.RocksDBMemory{MemTables: schema.Unavailable, TableReaders: schema.Unavailable,
			BlockCache: schema.Unavailable, OpenDBs: open}
	}
	f.taken, f.since = true, 0
	fig, err := env.RocksDBMemory()
	if err != nil {
		return schema.RocksDBMemory{MemTables: schema.Unavailable, TableReaders: schema.Unavailable,
			BlockCache: schema.Unavailable, OpenDBs: open}
	}
	return schema.RocksDBMemory{MemTables: int64(fig.MemTables), TableReaders: int64(fig.TableReaders),
		BlockCache: int64(fig.BlockCache), OpenDBs: fig.OpenDBs}
}
