package lifecycle

import (
	"errors"

	"github.com/linxGnu/grocksdb"
)

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
