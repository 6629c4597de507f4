package harness

import (
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/schema"
)

// RocksDBFiguresDBsPerSample is the rule for RocksDB's own per-DB figures
// (GetApproximateMemoryUsageByType, about 2–4 µs per DB here): they are read
// in rounds spread over the samples, a round-robin over the open DBs in the
// order they were opened, and one sample reads at most
// RocksDBFiguresDBsPerSample of them, so that a sample's cost does not grow
// with the number of open DBs. With n DBs open a round takes ⌈n /
// RocksDBFiguresDBsPerSample⌉ samples (one sample when none or one is open);
// the sample that completes it carries the round's sums: every DB open
// throughout the round read once, at some sample of the round, plus those
// opened during it (DBs closed before their turn are left out). The other
// samples carry schema.Unavailable (-1) in the byte fields. OpenDBs is counted
// on every sample (it is cheap, and the resident cost per DB needs it).
//
// Nothing in the analysis reads the byte fields (the resident cost per DB uses
// the native heap, RSS and OpenDBs, which every sample carries); they are
// RocksDB's own view, for the samples CSV and for a reader comparing it with
// the native heap.
const RocksDBFiguresDBsPerSample = 1

// rocksdbFigures applies the rule to one child's samples; the zero value
// starts a round.
type rocksdbFigures struct {
	after  uint64                  // open sequence number of the last DB read in this round (0: none yet)
	sum    lifecycle.MemoryFigures // the round's figures so far
	failed bool                    // a read of this round failed
}

// take returns the figures for this sample: the round's sums when this sample
// completes a round, else Unavailable bytes; OpenDBs is the number open now.
func (f *rocksdbFigures) take(env *lifecycle.Env) schema.RocksDBMemory {
	open := env.OpenDBs()
	unavailable := schema.RocksDBMemory{MemTables: schema.Unavailable, TableReaders: schema.Unavailable,
		BlockCache: schema.Unavailable, OpenDBs: open}
	fig, last, more, err := env.RocksDBMemoryAfter(f.after, RocksDBFiguresDBsPerSample)
	f.after = last
	if err != nil {
		f.failed = true
	}
	f.sum.OpenDBs += fig.OpenDBs
	f.sum.MemTables += fig.MemTables
	f.sum.TableReaders += fig.TableReaders
	f.sum.BlockCache += fig.BlockCache
	if more {
		return unavailable
	}
	sum, failed := f.sum, f.failed
	*f = rocksdbFigures{}
	if failed {
		return unavailable
	}
	return schema.RocksDBMemory{MemTables: int64(sum.MemTables), TableReaders: int64(sum.TableReaders),
		BlockCache: int64(sum.BlockCache), OpenDBs: open}
}
