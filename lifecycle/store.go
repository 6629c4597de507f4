package lifecycle

import (
	"fmt"
	"os"
	"runtime"

	"github.com/linxGnu/grocksdb"

	"github.com/rocksleak/rocksleak/spec"
)

// Sizes Kafka Streams configures for a persistent store (per store, per segment).
const (
	dataWriteBufferBytes    = 16 << 20
	dataBlockCacheBytes     = 50 << 20
	dataMaxWriteBuffers     = 3
	dataBlockBytes          = 4096
	offsetsWriteBufferBytes = 1 << 20
	offsetsMaxWriteBuffers  = 2
)

// Config describes one key-value store (or one segment of a window store).
type Config struct {
	Path        string // the store's directory
	Layout      Layout // KV (default), Migrating, Timestamped or MigratingWindowHeaders
	Model       Model
	Semantics   Semantics // RocksJava (default) or NoSafetyNet
	ExactlyOnce bool
}

// Store is a RocksDB-backed key-value store built and owned as Kafka Streams'
// RocksDBStore builds it, under one ownership model.
//
// Ownership: the store owns every native object it creates at Open. Close
// releases them in RocksDBStore.close()'s order (accessor, DB, options, write
// and flush options, cache), except what the model leaks: the offsets-CF
// options under a model without spec.FixOffsetsOptions; the DB's default read
// options under a model without spec.FixReadOptions; and, when the close-time
// marker write fails under a model without spec.FixFinally, the column-family
// handles, which the DB's close then releases late (RocksJava semantics) or
// which pin the DB (NoSafetyNet). Close is idempotent.
type Store struct {
	cfg Config
	env *Env

	rdb     *rocksDB
	db      *grocksdb.DB
	acc     *accessor
	owned   []*Native // released by Close in reverse order (DB and handles excluded)
	created []*Native // every native created by this store's open, for inspection
	offsets *Native   // the offsets-CF options (kept only for inspection under leaky models)
	fo      *grocksdb.FlushOptions
	cache   *grocksdb.Cache

	armed  *Fault
	closed bool
	pinned bool
}

// Open creates the store's natives, opens (or creates) the RocksDB at
// cfg.Path, and marks it open. On error everything the model would release is
// released, nothing is left open, and the error says why: ErrUncleanStatus (the
// caller must wipe and restore), ErrInjectedInit (wrapping RocksDB's error), or
// RocksDB's own error (e.g. "lock hold by current process" when a pinned DB
// holds the path).
func Open(env *Env, cfg Config) (*Store, error) {
	if cfg.Layout == "" {
		cfg.Layout = KV
	}
	if cfg.Semantics == "" {
		cfg.Semantics = RocksJava
	}
	s := &Store{cfg: cfg, env: env}
	if err := s.open(); err != nil {
		env.counts.InitFailures.Add(1)
		return nil, err
	}
	env.counts.Opens.Add(1)
	return s, nil
}

func (s *Store) keep(n *Native) *Native {
	s.owned = append(s.owned, n)
	s.created = append(s.created, n)
	return n
}

// open creates the store's natives in Kafka's order (DB and table options,
// cache, write, read and flush options, offsets-CF options), opens the DB and
// builds the accessor, then writes the open status. On error it releases
// everything the model releases (closeNativeResources), after wrapping an
// injected init failure's error in ErrInjectedInit.
func (s *Store) open() (err error) {
	defer func() {
		if err != nil {
			s.closeNativeResources()
		}
	}()
	opts, err := s.dbOptions()
	if err != nil {
		return err
	}
	wo, ro := s.ioOptions()
	offOpts := s.offsetsOptions()
	if s.injectInitFault(opts) {
		defer func() {
			if err != nil {
				err = fmt.Errorf("%w: %w", ErrInjectedInit, err)
			}
		}()
	}
	names, cfOpts := s.columnFamilies(opts, offOpts)
	rdb, handles, hns, err := s.env.openRocksDB(s.cfg.Semantics, opts, s.cfg.Path, names, cfOpts)
	if err != nil {
		return err
	}
	s.attachDB(rdb, hns)
	if err := s.attachAccessor(names, handles, hns, wo, ro); err != nil {
		return err
	}
	return s.acc.openStatus(s.cfg.ExactlyOnce)
}

// dbOptions creates the DB options, which are also the data CF options, as
// Kafka 4.3's RocksDBStore.openDB(...) sets them: atomic flush, 16 MB × 3
// write buffers, no compression, universal compaction,
// optimizeFiltersForHits, increaseParallelism(max(cores, 2)), info log level
// ERROR, and a block-based table with a 50 MB LRU block cache of the store's
// own, 4 KB blocks and a Bloom filter (10 bits per key, RocksJava's
// BloomFilter()); then the user's config setter, if the Env has one. The
// store owns every native it creates here (s.keep), also on error.
func (s *Store) dbOptions() (*grocksdb.Options, error) {
	l := s.env.Ledger
	opts, n := l.newOptions("db-options")
	s.keep(n)
	opts.SetCreateIfMissing(true)
	opts.SetCreateIfMissingColumnFamilies(true)
	opts.SetErrorIfExists(false)
	opts.SetAtomicFlush(true)
	opts.SetWriteBufferSize(dataWriteBufferBytes)
	opts.SetMaxWriteBufferNumber(dataMaxWriteBuffers)
	opts.SetCompression(grocksdb.NoCompression)
	opts.SetCompactionStyle(grocksdb.UniversalCompactionStyle)
	opts.SetOptimizeFiltersForHits(true)
	opts.IncreaseParallelism(max(runtime.NumCPU(), 2))
	opts.SetInfoLogLevel(grocksdb.ErrorInfoLogLevel)
	tbl, n := l.newTableOptions("data-table-options")
	s.keep(n)
	cache, n := l.newLRUCache("data-block-cache", dataBlockCacheBytes)
	s.keep(n)
	tbl.SetBlockCache(cache)
	tbl.SetBlockSize(dataBlockBytes)
	s.cache = cache
	tbl.SetFilterPolicy(grocksdb.NewBloomFilter(10))
	opts.SetBlockBasedTableFactory(tbl)
	if s.env.Bounded != nil {
		// The user's RocksDBConfigSetter runs after Kafka's defaults
		// (configSetter.setConfig(name, userSpecifiedOptions, configs) in
		// openDB), on the data CF's options only: the offsets CF's options
		// are not passed to it. The store's own 50 MB cache is still created
		// and closed, as in Kafka, but no table uses it.
		if err := s.env.Bounded.Apply(opts, tbl); err != nil {
			return nil, err
		}
		s.cache = nil
	}
	return opts, nil
}

// ioOptions creates the store's write options (WAL disabled), read options
// and flush options (wait), in that order, all owned by the store; the flush
// options are kept in s.fo.
func (s *Store) ioOptions() (*grocksdb.WriteOptions, *grocksdb.ReadOptions) {
	l := s.env.Ledger
	wo, n := l.newWriteOptions("write-options")
	s.keep(n)
	wo.DisableWAL(true)
	ro, n := l.newReadOptions("read-options")
	s.keep(n)
	fo, n := l.newFlushOptions("flush-options")
	s.keep(n)
	fo.SetWait(true)
	s.fo = fo
	return wo, ro
}

// injectInitFault draws the next init fault from the Env's injector and, if
// one is due, sets opts so that RocksDB's open fails for real: refuse an
// existing DB, or refuse to create a missing one. It reports whether it did;
// the caller then wraps the open's error in ErrInjectedInit.
func (s *Store) injectInitFault(opts *grocksdb.Options) bool {
	if !s.env.Faults.NextInit() {
		return false
	}
	if _, statErr := os.Stat(s.cfg.Path); statErr == nil {
		opts.SetErrorIfExists(true)
	} else {
		opts.SetCreateIfMissing(false)
	}
	return true
}

// columnFamilies lists the layout's column families and their options, in
// open order: DEFAULT, the new-format CF for a three-CF layout, offsets.
func (s *Store) columnFamilies(opts, offOpts *grocksdb.Options) ([]string, []*grocksdb.Options) {
	if s.cfg.Layout.threeCF() {
		return []string{cfDefault, s.cfg.Layout.newFormatCF(), cfOffsets},
			[]*grocksdb.Options{opts, opts, offOpts}
	}
	return []string{cfDefault, cfOffsets}, []*grocksdb.Options{opts, offOpts}
}

// attachDB records the opened DB in the store (s.rdb, s.db), lists the DB,
// its handles and its default read options among the natives the open
// created, calls the Env's onDBOpen hook, and registers the DB with the Env.
func (s *Store) attachDB(rdb *rocksDB, hns []*Native) {
	db := rdb.db
	s.rdb, s.db = rdb, db
	s.created = append(s.created, rdb.dbn)
	s.created = append(s.created, hns...)
	s.created = append(s.created, rdb.defaultReadNative)
	if s.env.onDBOpen != nil {
		s.env.onDBOpen(s)
	}
	s.env.addOpen(db, s.cache)
}

// attachAccessor builds the store's accessor over the opened handles (offsets
// apart, data CFs in open order) and sets s.acc before anything can fail, so
// an error path releases every handle. For a three-CF layout it probes the
// old CF: empty, its handle is released now and the single accessor serves
// the new CF; with data, the dual accessor serves both.
func (s *Store) attachAccessor(names []string, handles []*grocksdb.ColumnFamilyHandle, hns []*Native, wo *grocksdb.WriteOptions, ro *grocksdb.ReadOptions) error {
	acc := &accessor{db: s.db, ledger: s.env.Ledger, wo: wo, ro: ro}
	for i, name := range names {
		c := cf{h: handles[i], n: hns[i]}
		switch name {
		case cfOffsets:
			acc.offsets = c
		default:
			acc.data = append(acc.data, c)
		}
	}
	s.acc = acc
	if !s.cfg.Layout.threeCF() {
		return nil
	}
	acc.convert = s.cfg.Layout.converter()
	hasOld, err := s.cfHasData(acc.data[0])
	if err != nil {
		return err
	}
	if !hasOld {
		// Single accessor on the new CF; the empty old CF's handle is
		// released with the DB's other resources.
		acc.data[0].n.Close()
		acc.data = acc.data[1:]
	}
	return nil
}

// offsetsOptions builds the offsets-CF options as the model does. Neither
// form touches the table factory: the options keep RocksDB's default
// block-based table factory with its implicit LRU cache (8 MiB on 7.8.3), a
// shared_ptr that lives as long as the options and the open CF that copied it.
func (s *Store) offsetsOptions() *grocksdb.Options {
	l := s.env.Ledger
	o, n := l.newOptions("offsets-cf-options")
	s.offsets = n
	s.created = append(s.created, n)
	o.SetCompression(grocksdb.NoCompression)
	o.SetWriteBufferSize(offsetsWriteBufferBytes)
	if s.cfg.Model.Has(spec.FixOffsetsOptions) {
		// 4.3.1: RocksDBStore.openDB builds them with only NO_COMPRESSION and
		// a 1 MB write buffer, keeps them in offsetsCfOptions and closes them
		// in close() and closeOptionsAndFilters().
		s.owned = append(s.owned, n)
		return o
	}
	// 4.3.0: the static createOffsetsCFOptions() also sets LEVEL compaction
	// and maxWriteBufferNumber(2), and nothing keeps the options to close them.
	o.SetCompactionStyle(grocksdb.LevelCompactionStyle)
	o.SetMaxWriteBufferNumber(offsetsMaxWriteBuffers)
	return o
}

// cfHasData probes a CF with an iterator, as RocksDBTimestampedStore's
// openRocksDB does with RocksJava's db.newIterator(cf) (which reads with the
// DB's defaultReadOptions_).
func (s *Store) cfHasData(c cf) (bool, error) {
	it, n := s.env.Ledger.newIteratorCF("migration-probe", s.db, s.rdb.defaultReadOptions, c.h)
	defer n.Close()
	it.SeekToFirst()
	return it.Valid(), it.Err()
}

// closeNativeResources is the cleanup after an init failure (RocksDBStore's
// openDB error path): every handle the accessor got is released, the DB is
// closed, its default read options are released where the model does so, and
// the store's natives are destroyed (the offsets options only where the model
// owns them).
func (s *Store) closeNativeResources() {
	if s.acc != nil {
		for _, c := range s.acc.handles() {
			c.n.Close()
		}
	}
	if s.rdb != nil {
		s.rdb.close()
		if s.cfg.Model.Has(spec.FixReadOptions) {
			s.rdb.releaseDefaultReadOptions()
		}
	}
	s.releaseOwned()
	s.closed = true
}

func (s *Store) releaseOwned() {
	if s.db != nil {
		s.env.forgetCache(s.db)
	}
	for i := len(s.owned) - 1; i >= 0; i-- {
		s.owned[i].Close()
	}
}

// ArmCloseFault makes the next Close fail its marker write with f (NoFault
// forces a clean close). Without it, Close draws from the Env's injector.
func (s *Store) ArmCloseFault(f Fault) { s.armed = &f }

// Close marks the store closed and releases what the model releases. It returns
// an error wrapping ErrMarkerWrite when the close-time status write failed;
// the close still went on (as Kafka's RocksDBStore.close does), so a nil or
// non-nil result says nothing about what was released: the ledger does.
// Calling Close again does nothing and returns nil.
func (s *Store) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	fault := NoFault
	if s.armed != nil {
		fault = *s.armed
	} else {
		fault = s.env.Faults.NextClose()
	}
	var err error
	if s.cfg.Model.Has(spec.FixFinally) {
		err = s.acc.closeFinally(fault)
	} else {
		err = s.acc.closeLeaky(fault)
	}
	s.env.counts.Lifecycles.Add(1)
	if err != nil {
		s.env.counts.FailedCloses.Add(1)
	}

	// db.close(): RocksJava releases the handles the accessor skipped (late);
	// without that safety net they pin the DB, which stays open with
	// everything it holds.
	if !s.rdb.close() {
		s.pinned = true
		s.env.counts.Pinned.Add(1)
	}
	// The store-side release of defaultReadOptions_ comes right after
	// db.close(); on a pinned DB it runs too (nothing reads with it any more).
	if s.cfg.Model.Has(spec.FixReadOptions) {
		s.rdb.releaseDefaultReadOptions()
	}
	s.releaseOwned()
	s.env.Ledger.leakSynthetic(s.env.SyntheticLeakBytes)
	return err
}

// ThrowOnOffsetsPut makes every later put to the offsets column family fail,
// as Kafka's test helper ThrowingOnOffsetsPutDBAccessor does: each is issued
// with sync=true and the WAL disabled, which RocksDB itself rejects
// ("Invalid argument: Sync writes has to enable WAL."). It returns a function
// reporting how many offsets puts failed so far (its thrownPutCount).
func (s *Store) ThrowOnOffsetsPut() (thrownPuts func() int64) {
	s.acc.throwOnOffsetsPut = true
	return func() int64 { return s.acc.thrownPuts }
}

// DefaultReadOptions is the ledger record of the DB instance's default read
// options (RocksJava's RocksDB.defaultReadOptions_); nil before the DB opened.
func (s *Store) DefaultReadOptions() *Native {
	if s.rdb == nil {
		return nil
	}
	return s.rdb.defaultReadNative
}

// Handles returns the ledger records of the accessor's column-family handles,
// offsets first, then the data handle (old and new for the dual accessor).
func (s *Store) Handles() []*Native {
	var out []*Native
	for _, c := range s.acc.handles() {
		out = append(out, c.n)
	}
	return out
}

// Pinned reports whether a skipped handle release left the DB open.
func (s *Store) Pinned() bool { return s.pinned }

// Path is the store's directory.
func (s *Store) Path() string { return s.cfg.Path }

// Dual reports whether the store uses the dual (migrating) accessor.
func (s *Store) Dual() bool { return s.acc != nil && s.acc.dual() }

// Natives returns every native object this store's open created, DB and
// handles included, for inspection (the analogue of capturing RocksJava
// objects in a test). The store does not own what it leaks.
func (s *Store) Natives() []*Native { return append([]*Native(nil), s.created...) }

// OffsetsOptions is the ledger record of the offsets-CF options of this open.
func (s *Store) OffsetsOptions() *Native { return s.offsets }
