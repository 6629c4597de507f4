package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/linxGnu/grocksdb"

	"github.com/rocksleak/rocksleak/spec"
)

// Layout is the column-family layout of a key-value store.
type Layout string

const (
	// KV: data in "default", metadata in "offsets".
	KV Layout = "kv"
	// Migrating: a timestamped store upgrading from the plain format: old data
	// in "default", new data in "keyValueWithTimestamp", metadata in "offsets".
	// The dual accessor is used while the old CF holds data.
	Migrating Layout = "migrating"
	// Timestamped: a timestamped segment of a DSL window store (Kafka's
	// TimestampedSegments.getOrCreateSegment → new TimestampedSegment, a
	// RocksDBTimestampedStore): the same column families as Migrating
	// ("default", "keyValueWithTimestamp", "offsets"). In regular mode
	// (RocksDBTimestampedStore.openRocksDB with an empty DEFAULT CF) the
	// DEFAULT handle is closed right after open and two handles are held; in
	// upgrade mode (old data in DEFAULT) the dual accessor holds three.
	Timestamped Layout = "timestamped"
	// MigratingWindowHeaders: a segment of Kafka's
	// RocksDBMigratingWindowStoreWithHeaders (openRocksDB): plain values in
	// "default", values with headers in "windowKeyValueWithHeaders", metadata
	// in "offsets". With data in DEFAULT it opens in upgrade mode with
	// new DualColumnFamilyAccessor(offsetsCf, noHeadersColumnFamily,
	// withHeadersColumnFamily, HeadersBytesStore::convertToHeaderFormat, ...);
	// otherwise a SingleColumnFamilyAccessor on the headers CF and
	// noHeadersColumnFamily.close().
	MigratingWindowHeaders Layout = "migrating-window-headers"
)

// threeCF reports whether the layout opens DEFAULT, a new-format data CF and
// offsets (a store that may serve old-format data through the dual accessor).
func (l Layout) threeCF() bool {
	return l == Migrating || l == Timestamped || l == MigratingWindowHeaders
}

// newFormatCF is the new-format data CF of a three-CF layout.
func (l Layout) newFormatCF() string {
	if l == MigratingWindowHeaders {
		return cfWindowHeaders
	}
	return cfNewFormat
}

// converter is the dual accessor's valueConverter for the layout:
// TimestampedBytesStore::convertToTimestampedFormat for the timestamped
// layouts, HeadersBytesStore::convertToHeaderFormat for the window store
// with headers.
func (l Layout) converter() func([]byte) []byte {
	if l == MigratingWindowHeaders {
		return convertToHeaderFormat
	}
	return convertToTimestampedFormat
}

// Column-family names.
const (
	cfDefault   = "default"
	cfNewFormat = "keyValueWithTimestamp"
	// cfWindowHeaders is RocksDBMigratingWindowStoreWithHeaders' new CF.
	cfWindowHeaders = "windowKeyValueWithHeaders"
	cfOffsets       = "offsets"
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

func (s *Store) open() (err error) {
	l := s.env.Ledger
	defer func() {
		if err != nil {
			s.closeNativeResources()
		}
	}()

	// DB options, which are also the data CF options, as Kafka 4.3's
	// RocksDBStore.openDB(...) sets them: atomic flush, 16 MB × 3 write
	// buffers, no compression, universal compaction, optimizeFiltersForHits,
	// increaseParallelism(max(cores, 2)), info log level ERROR, and a
	// block-based table with a 50 MB LRU block cache of the store's own, 4 KB
	// blocks and a Bloom filter (10 bits per key, RocksJava's BloomFilter()).
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
			return err
		}
		s.cache = nil
	}

	wo, n := l.newWriteOptions("write-options")
	s.keep(n)
	wo.DisableWAL(true)
	ro, n := l.newReadOptions("read-options")
	s.keep(n)
	fo, n := l.newFlushOptions("flush-options")
	s.keep(n)
	fo.SetWait(true)
	s.fo = fo

	offOpts := s.offsetsOptions()

	if s.env.Faults.NextInit() {
		// A real failure from RocksDB's open: refuse an existing DB, or refuse
		// to create a missing one.
		if _, statErr := os.Stat(s.cfg.Path); statErr == nil {
			opts.SetErrorIfExists(true)
		} else {
			opts.SetCreateIfMissing(false)
		}
		defer func() {
			if err != nil {
				err = fmt.Errorf("%w: %w", ErrInjectedInit, err)
			}
		}()
	}

	names := []string{cfDefault, cfOffsets}
	cfOpts := []*grocksdb.Options{opts, offOpts}
	if s.cfg.Layout.threeCF() {
		names = []string{cfDefault, s.cfg.Layout.newFormatCF(), cfOffsets}
		cfOpts = []*grocksdb.Options{opts, opts, offOpts}
	}
	rdb, handles, hns, err := s.env.openRocksDB(s.cfg.Semantics, opts, s.cfg.Path, names, cfOpts)
	if err != nil {
		return err
	}
	db := rdb.db
	s.rdb, s.db = rdb, db
	s.created = append(s.created, rdb.dbn)
	s.created = append(s.created, hns...)
	s.created = append(s.created, rdb.defaultReadNative)
	if s.env.onDBOpen != nil {
		s.env.onDBOpen(s)
	}
	s.env.addOpen(db, s.cache)
	acc := &accessor{db: db, ledger: l, wo: wo, ro: ro}
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
	if s.cfg.Layout.threeCF() {
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
	}
	return acc.openStatus(s.cfg.ExactlyOnce)
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

// Put writes one record to the data CF (the new one for the dual accessor).
func (s *Store) Put(key, value []byte) error {
	if s.closed {
		return ErrClosed
	}
	return s.acc.put(key, value)
}

// Get reads one record; nil when absent.
func (s *Store) Get(key []byte) ([]byte, error) {
	if s.closed {
		return nil, ErrClosed
	}
	return s.acc.get(key)
}

// Record is one key-value pair.
type Record struct{ Key, Value []byte }

// PutBatch writes records in one write batch (as a restore does).
func (s *Store) PutBatch(records []Record) error {
	if s.closed {
		return ErrClosed
	}
	b, n := s.env.Ledger.newWriteBatch("restore-batch")
	defer n.Close()
	for _, r := range records {
		if s.acc.dual() {
			b.DeleteCF(s.acc.data[0].h, r.Key)
		}
		b.PutCF(s.acc.current().h, r.Key, r.Value)
	}
	return s.db.Write(s.acc.wo, b)
}

// Commit writes the changelog offsets and the position to the offsets CF and
// does not flush, as Kafka 4.3's RocksDBStore.commit(changelogOffsets) does:
// it calls cfAccessor.commit(dbAccessor, position, changelogOffsets) only
// (AbstractColumnFamilyAccessor.commit puts each offset and the position, then
// commitStagedWrites(), a no-op for the direct accessor). The per-commit
// force-flush went with KIP-1035 (apache/kafka PR #21871, "Remove explicit
// flushes from RocksDBStores"): the memtables flush when they are full
// (write_buffer_size; atomic flush keeps the data and offsets CFs consistent)
// or when the DB closes (RocksDB flushes unpersisted memtables at close with
// the WAL disabled), so a committed offset becomes durable only then.
func (s *Store) Commit(offsets map[string]int64) error {
	if s.closed {
		return ErrClosed
	}
	for k, v := range offsets {
		if err := s.acc.putOffsets(s.acc.wo, []byte(k), encodeLong(v)); err != nil {
			return err
		}
	}
	return s.acc.putOffsets(s.acc.wo, positionKey, encodePosition(offsets))
}

// Flush flushes every column family of the store and waits (RocksDBStore.flush(),
// which Kafka 4.3 no longer calls on commit; kept for tests and tools).
func (s *Store) Flush() error {
	if s.closed {
		return ErrClosed
	}
	var errs []error
	for _, c := range s.acc.handles() {
		errs = append(errs, s.db.FlushCF(c.h, s.fo))
	}
	return errors.Join(errs...)
}

// Offset reads a committed changelog offset (ok=false when absent).
func (s *Store) Offset(key string) (int64, bool, error) {
	if s.closed {
		return 0, false, ErrClosed
	}
	v, err := s.acc.getCF(s.acc.offsets.h, []byte(key))
	if err != nil || v == nil {
		return 0, false, err
	}
	off, err := decodeLong(v)
	return off, err == nil, err
}

// Status reads the status marker of an open store.
func (s *Store) Status() (int64, error) {
	if s.closed {
		return 0, ErrClosed
	}
	v, err := s.acc.getCF(s.acc.offsets.h, statusKey)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, errors.New("status: absent")
	}
	return decodeLong(v)
}

// OffsetsBlockCacheCapacity reads the CF property rocksdb.block-cache-capacity
// of the offsets CF; ok is false when the CF has no block cache.
func (s *Store) OffsetsBlockCacheCapacity() (capacity uint64, ok bool) {
	if s.closed {
		return 0, false
	}
	return s.db.GetIntPropertyCF("rocksdb.block-cache-capacity", s.acc.offsets.h)
}

// ReadStatus opens nothing: it reads the status marker of a closed store at
// path with a read-only DB, for tests and diagnostics. ok is false when absent.
func ReadStatus(env *Env, path string) (status int64, ok bool, err error) {
	opts, on := env.Ledger.newOptions("status-reader-options")
	defer on.Close()
	names := []string{cfDefault, cfOffsets}
	cfo := []*grocksdb.Options{opts, opts}
	if have, lerr := grocksdb.ListColumnFamilies(opts, path); lerr == nil && len(have) == 3 {
		// A three-CF layout: its new-format CF is the one that is neither
		// DEFAULT nor offsets (keyValueWithTimestamp or windowKeyValueWithHeaders).
		for _, h := range have {
			if h != cfDefault && h != cfOffsets {
				names = []string{cfDefault, h, cfOffsets}
				cfo = []*grocksdb.Options{opts, opts, opts}
			}
		}
	}
	db, hs, err := grocksdb.OpenDbForReadOnlyColumnFamilies(opts, path, names, cfo, false)
	if err != nil {
		return 0, false, err
	}
	defer func() {
		for _, h := range hs {
			h.Destroy()
		}
		db.Close()
	}()
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	sl, err := db.GetCF(ro, hs[len(hs)-1], statusKey)
	if err != nil {
		return 0, false, err
	}
	defer sl.Free()
	if !sl.Exists() {
		return 0, false, nil
	}
	st, err := decodeLong(sl.Data())
	return st, err == nil, err
}

// deleteRange deletes [start, end) from the data CF (the new one for the dual
// accessor).
func (s *Store) deleteRange(start, end []byte) error {
	if s.closed {
		return ErrClosed
	}
	return s.db.DeleteRangeCF(s.acc.wo, s.acc.current().h, start, end)
}
