package lifecycle

// Test-only access, the analogue of the package-private members Kafka's tests
// reach into.

// OnDBOpen makes f see every store of e right after its RocksDB opened, before
// the rest of the open can fail (Kafka's tests override RocksDBStore.openRocksDB).
func (e *Env) OnDBOpen(f func(*Store)) { e.onDBOpen = f }

// ReleaseDefaultReadOptions is Kafka's static RocksDBStore.releaseDefaultReadOptions(db)
// applied to this store's DB: idempotent.
func (s *Store) ReleaseDefaultReadOptions() { s.rdb.releaseDefaultReadOptions() }

// ThreeCF reports whether the layout opens DEFAULT, a new-format data CF and
// offsets.
func ThreeCF(l Layout) bool { return l.threeCF() }

// OldCFValue reads key from the old (DEFAULT) data CF of a store in upgrade
// mode, bypassing the dual accessor; ok is false when the store does not hold
// the old CF's handle.
func (s *Store) OldCFValue(key []byte) (v []byte, ok bool, err error) {
	if !s.acc.dual() {
		return nil, false, nil
	}
	v, err = s.acc.getCF(s.acc.data[0].h, key)
	return v, true, err
}

// NewCFValue reads key from the data CF new writes go to, bypassing the dual
// accessor.
func (s *Store) NewCFValue(key []byte) ([]byte, error) {
	return s.acc.getCF(s.acc.current().h, key)
}
