package goengine

import (
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/schema"
)

// RocksDBFiguresDBsPerSample and RocksDBFiguresEvery are the rule for
// RocksDB's own per-DB figures (GetApproximateMemoryUsageByType, 3–10 µs per
// DB here): they are read in rounds spread over the samples, a round-robin
// over the open DBs in the order they were opened, and only every
// RocksDBFiguresEvery-th sample of a child (its first, then every
// RocksDBFiguresEvery-th after it: a reading turn) reads any, at most
// RocksDBFiguresDBsPerSample of them, so that a sample's cost does not grow
// with the number of open DBs and the read's cost is spread over
// RocksDBFiguresEvery samples. A round covers the DBs open when it starts:
// with n open then it takes at most ⌈n / RocksDBFiguresDBsPerSample⌉ reading
// turns (one when none or one is open), so at most RocksDBFiguresEvery ×
// ⌈n / RocksDBFiguresDBsPerSample⌉ samples, and the sample that completes it
// carries the round's sums: each of those DBs read once, at its turn (DBs
// closed before their turn are left out; those opened during the round wait
// for the next, so that churn cannot stretch a round). The other samples
// carry schema.Unavailable (-1) in the byte fields. The run's end sample
// (schema.TriggerEnd, taken once, with everything still open) reads every
// open DB at once instead, so that a run whose rounds outlast it (2,048 DBs
// need 8,192 samples) still ends with RocksDB's figures. OpenDBs is counted
// on every sample (it is cheap, and the resident cost per DB needs it).
//
// Nothing in the analysis reads the byte fields (the resident cost per DB uses
// the native heap, RSS and OpenDBs, which every sample carries); they are
// RocksDB's own view, for the samples CSV and for a reader comparing it with
// the native heap.
const (
	RocksDBFiguresDBsPerSample = 1
	RocksDBFiguresEvery        = 4
)

// rocksdbFigures applies the rule to one child's samples; the zero value
// starts a round.
type rocksdbFigures struct {
	turn    int                     // samples since the last reading turn, modulo RocksDBFiguresEvery
	started bool                    // a round is under way
	through uint64                  // open sequence number of the last DB the round covers
	after   uint64                  // open sequence number of the last DB read in this round (0: none yet)
	sum     lifecycle.MemoryFigures // the round's figures so far
	failed  bool                    // a read of this round failed
}

// take returns the figures for this sample: the round's sums when this sample
// completes a round, else Unavailable bytes; OpenDBs is the number open now.
func (f *rocksdbFigures) take(env *lifecycle.Env) schema.RocksDBMemory {
	open := env.OpenDBs()
	unavailable := unavailableFigures(open)
	turn := f.turn == 0
	f.turn = (f.turn + 1) % RocksDBFiguresEvery
	if !turn {
		return unavailable
	}
	if !f.started {
		f.started, f.through = true, env.LastOpenSeq()
	}
	fig, last, more, err := env.RocksDBMemoryBetween(f.after, f.through, RocksDBFiguresDBsPerSample)
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
	*f = rocksdbFigures{turn: f.turn}
	if failed {
		return unavailable
	}
	return schema.RocksDBMemory{MemTables: int64(sum.MemTables), TableReaders: int64(sum.TableReaders),
		BlockCache: int64(sum.BlockCache), OpenDBs: open}
}

// all returns the figures of every open DB at once (the end sample's) and
// starts a new round, whose first reading turn is the next sample.
func (f *rocksdbFigures) all(env *lifecycle.Env) schema.RocksDBMemory {
	*f = rocksdbFigures{}
	fig, err := env.RocksDBMemory()
	if err != nil {
		return unavailableFigures(env.OpenDBs())
	}
	return schema.RocksDBMemory{MemTables: int64(fig.MemTables), TableReaders: int64(fig.TableReaders),
		BlockCache: int64(fig.BlockCache), OpenDBs: fig.OpenDBs}
}

func unavailableFigures(open int) schema.RocksDBMemory {
	return schema.RocksDBMemory{MemTables: schema.Unavailable, TableReaders: schema.Unavailable,
		BlockCache: schema.Unavailable, OpenDBs: open}
}
