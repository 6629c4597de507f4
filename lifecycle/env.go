package lifecycle

import (
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

	counts Counts
	// onDBOpen, set by tests only, sees every store right after its RocksDB
	// opened (as Kafka's tests override RocksDBStore.openRocksDB to capture it).
	onDBOpen func(*Store)
	mu       sync.Mutex
	open     map[*grocksdb.DB]*grocksdb.Cache // open DBs → their block cache while the store still owns it
}

// NewEnv returns an Env with a fresh ledger.
func NewEnv(faults *Injector) *Env {
	return &Env{Ledger: NewLedger(), Faults: faults, open: map[*grocksdb.DB]*grocksdb.Cache{}}
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
	return len(e.open)
}

// Counts returns the live counters (read them with Load).
func (e *Env) Counts() *Counts { return &e.counts }

func (e *Env) addOpen(db *grocksdb.DB, cache *grocksdb.Cache) {
	e.mu.Lock()
	e.open[db] = cache
	e.mu.Unlock()
}

// forgetCache drops the cache of db from the accounting (its owner is about
// to destroy its reference); the DB itself may stay open (pinned).
func (e *Env) forgetCache(db *grocksdb.DB) {
	e.mu.Lock()
	if _, ok := e.open[db]; ok {
		e.open[db] = nil
	}
	e.mu.Unlock()
}

func (e *Env) removeOpen(db *grocksdb.DB) {
	e.mu.Lock()
	delete(e.open, db)
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
	dbs := make([]*grocksdb.DB, 0, len(e.open))
	var caches []*grocksdb.Cache
	for db, c := range e.open {
		dbs = append(dbs, db)
		if c != nil {
			caches = append(caches, c)
		}
	}
	e.mu.Unlock()
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
