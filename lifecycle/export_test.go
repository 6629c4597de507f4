package lifecycle

// Test-only access, the analogue of the package-private members Kafka's tests
// reach into.

// OnDBOpen makes f see every store of e right after its RocksDB opened, before
// the rest of the open can fail (Kafka's tests override RocksDBStore.openRocksDB).
func (e *Env) OnDBOpen(f func(*Store)) { e.onDBOpen = f }

// ReleaseDefaultReadOptions is Kafka's static RocksDBStore.releaseDefaultReadOptions(db)
// applied to this store's DB: idempotent.
func (s *Store) ReleaseDefaultReadOptions() { s.rdb.releaseDefaultReadOptions() }
