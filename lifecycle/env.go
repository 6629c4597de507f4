package lifecycle

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/linxGnu/grocksdb"
)

// Env is what all the stores of one process share: the ledger of native
// objects, the failure injector, the store event counts and the set of DBs that
// are still open (including DBs pinned by leaked handles). Stores never create
// an Env; their owner does.
type Env struct {
	Ledger *Ledger
	// Faults draws close and init failures; nil injects none.
	Faults *Injector
	// SyntheticLeakBytes, when positive, makes every store close malloc, touch
	// and never free this many bytes of C memory: a leak of known size for
	// checking estimators (the calibration scenario).
	SyntheticLeakBytes int
	// Bounded, when set, is the bounded-memory RocksDBConfigSetter (Kafka's
	// docs, BoundedMemoryRocksDBConfig): every store applies it to its data
	// column family's options after Kafka's defaults. The Env does not own
	// it: its owner closes it after the stores.
	Bounded *BoundedMemory

	counts Counts
	// onDBOpen, set by tests only, sees every store right after its RocksDB
	// opened (as Kafka's tests override RocksDBStore.openRocksDB to capture it).
	onDBOpen func(*Store)
	mu       sync.Mutex
	open     map[*grocksdb.DB]uint64 // open DBs → their open sequence number
	// order lists the open DBs by open sequence number (ascending), each
	// with its block cache while the store still owns it.
	order   []openDB
	lastSeq uint64 // the last open sequence number given out
}

// openDB is one open DB in Env.order.
type openDB struct {
	seq   uint64
	db    *grocksdb.DB
	cache *grocksdb.Cache
}

// NewEnv returns an Env with a fresh ledger.
func NewEnv(faults *Injector) *Env {
	return &Env{Ledger: NewLedger(), Faults: faults, open: map[*grocksdb.DB]uint64{}}
}

// Counts are the stores' own event counts. A lifecycle is one store (or
// segment) opened and closed.
type Counts struct {
	Opens        atomic.Int64 // successful opens
	Lifecycles   atomic.Int64 // closes of successfully opened stores
	FailedCloses atomic.Int64 // closes whose marker write failed
	InitFailures atomic.Int64 // opens that failed after natives were created
	Pinned       atomic.Int64 // DBs left open by skipped handle releases
	// DBInstances counts RocksDB instances opened, those of opens that then
	// failed (an unclean status under exactly-once) included: each one brings
	// its own default read options.
	DBInstances atomic.Int64
}

// OpenDBs is the number of DBs still open in this Env, pinned ones included
// (what RocksDBMemory sums over), without asking RocksDB.
func (e *Env) OpenDBs() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.order)
}

// Counts returns the live counters (read them with Load).
func (e *Env) Counts() *Counts { return &e.counts }

func (e *Env) addOpen(db *grocksdb.DB, cache *grocksdb.Cache) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if seq, ok := e.open[db]; ok {
		e.order[e.index(seq)].cache = cache
		return
	}
	e.lastSeq++
	e.open[db] = e.lastSeq
	e.order = append(e.order, openDB{seq: e.lastSeq, db: db, cache: cache})
}

// index is the position in e.order of the open DB with sequence number seq,
// or where it would be if none has it (held: e.mu).
func (e *Env) index(seq uint64) int {
	i, _ := slices.BinarySearchFunc(e.order, seq, func(o openDB, s uint64) int {
		switch {
		case o.seq < s:
			return -1
		case o.seq > s:
			return 1
		}
		return 0
	})
	return i
}

// forgetCache drops the cache of db from the accounting (its owner is about
// to destroy its reference); the DB itself may stay open (pinned).
func (e *Env) forgetCache(db *grocksdb.DB) {
	e.mu.Lock()
	if seq, ok := e.open[db]; ok {
		e.order[e.index(seq)].cache = nil
	}
	e.mu.Unlock()
}

func (e *Env) removeOpen(db *grocksdb.DB) {
	e.mu.Lock()
	if seq, ok := e.open[db]; ok {
		i := e.index(seq)
		e.order = slices.Delete(e.order, i, i+1)
		delete(e.open, db)
	}
	e.mu.Unlock()
}

// MemoryFigures is RocksDB's own accounting of the DBs still open in this Env,
// pinned ones included. Bytes.
type MemoryFigures struct {
	OpenDBs      int
	MemTables    uint64
	TableReaders uint64
	BlockCache   uint64 // usage of the data block caches of stores still open
}

// RocksDBMemory asks RocksDB for the memtable and table-reader memory of every
// open DB. The implicit per-CF caches are invisible to RocksDB's accounting.
func (e *Env) RocksDBMemory() (MemoryFigures, error) {
	e.mu.Lock()
	dbs := make([]*grocksdb.DB, 0, len(e.order))
	var caches []*grocksdb.Cache
	for _, o := range e.order {
		dbs = append(dbs, o.db)
		if o.cache != nil {
			caches = append(caches, o.cache)
		}
	}
	e.mu.Unlock()
	return memoryOf(dbs, caches)
}

// LastOpenSeq is the open sequence number of the DB opened last (0 before
// any): DBs are numbered 1, 2, ... in the order they open.
func (e *Env) LastOpenSeq() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastSeq
}

// RocksDBMemoryBetween asks RocksDB, as RocksDBMemory does, for the figures of
// at most n open DBs: the first ones, in the order they were opened, whose
// open sequence number is greater than after and at most through. It returns
// their figures (OpenDBs: how many it read), the sequence number of the last
// one read (after when it read none) and whether open DBs remain after that
// one up to through. A caller that fixes through (e.g. at LastOpenSeq) and
// passes the returned sequence number back until none remain has read every
// DB of that range still open at its turn, once; the cost of one call is that
// of at most n DBs whatever the number open.
func (e *Env) RocksDBMemoryBetween(after, through uint64, n int) (fig MemoryFigures, last uint64, more bool, err error) {
	e.mu.Lock()
	i := e.index(after + 1)
	end := e.index(through + 1) // the first DB past through
	j := min(end, i+max(n, 0))
	var dbs []*grocksdb.DB
	var caches []*grocksdb.Cache
	last = after
	for _, o := range e.order[i:max(i, j)] {
		dbs = append(dbs, o.db)
		if o.cache != nil {
			caches = append(caches, o.cache)
		}
		last = o.seq
	}
	more = j < end
	e.mu.Unlock()
	fig, err = memoryOf(dbs, caches)
	return fig, last, more, err
}

func memoryOf(dbs []*grocksdb.DB, caches []*grocksdb.Cache) (MemoryFigures, error) {
	if len(dbs) == 0 {
		return MemoryFigures{}, nil
	}
	u, err := grocksdb.GetApproximateMemoryUsageByType(dbs, caches)
	if err != nil {
		return MemoryFigures{OpenDBs: len(dbs)}, err
	}
	return MemoryFigures{OpenDBs: len(dbs), MemTables: u.MemTableTotal,
		TableReaders: u.MemTableReadersTotal, BlockCache: u.CacheTotal}, nil
}
