package lifecycle

import (
	"github.com/linxGnu/grocksdb"

	"github.com/rocksleak/rocksleak/spec"
)

// rocksDB is an open RocksDB as Kafka's RocksDBStore holds it: RocksJava's
// org.rocksdb.RocksDB (java/src/main/java/org/rocksdb/RocksDB.java), over the
// C API through grocksdb.
//
// Ownership: it owns the DB and, like RocksJava's ownedColumnFamilyHandles,
// keeps the ledger records of the handles open handed out (their owner is the
// caller, the accessor). It also owns a default read options object created
// with the instance (RocksJava's defaultReadOptions_, a field initializer of
// RocksDB since RocksJava 8.10.0), which close does not release: only
// releaseDefaultReadOptions does.
type rocksDB struct {
	env *Env
	sem spec.Semantics

	db      *grocksdb.DB
	dbn     *Native
	handles []*Native // ownedColumnFamilyHandles

	defaultReadOptions *grocksdb.ReadOptions
	defaultReadNative  *Native
}

// openRocksDB opens the DB at path with the named column families and
// registers the DB, each handle and the instance's default read options. On
// error nothing is registered and nothing is left open (RocksJava constructs
// the RocksDB object, and so its defaultReadOptions_, only after the native
// open succeeded).
func (e *Env) openRocksDB(sem spec.Semantics, opts *grocksdb.Options, path string, cfNames []string, cfOpts []*grocksdb.Options) (*rocksDB, []*grocksdb.ColumnFamilyHandle, []*Native, error) {
	db, dbn, handles, hns, err := e.Ledger.openDB(opts, path, cfNames, cfOpts)
	if err != nil {
		return nil, nil, nil, err
	}
	e.counts.DBInstances.Add(1)
	ro, ron := e.Ledger.newReadOptions("default-read-options")
	r := &rocksDB{env: e, sem: sem, db: db, dbn: dbn, handles: hns, defaultReadOptions: ro, defaultReadNative: ron}
	return r, handles, hns, nil
}

// open reports whether the DB itself is still open.
func (r *rocksDB) open() bool { return r != nil && r.dbn.Owning() }

// close is RocksDB.close(). Under RocksJava semantics it first releases every
// handle it handed out that is still owned (each recorded in the ledger as
// released late), then closes the DB, and returns true. Under NoSafetyNet a
// handle that is still owned pins the DB: closing it would abort the process
// (Debian's RocksDB asserts no handle is alive), so close leaves it open and
// returns false. Closing a closed DB does nothing and returns true. It never
// releases the default read options.
func (r *rocksDB) close() bool {
	if !r.open() {
		return true
	}
	var live []*Native
	for _, h := range r.handles {
		if h.Owning() {
			live = append(live, h)
		}
	}
	if len(live) > 0 && r.sem == spec.NoSafetyNet {
		return false
	}
	for _, h := range live {
		h.ReleaseLate()
	}
	r.handles = nil
	r.env.removeOpen(r.db)
	r.dbn.Close()
	return true
}

// releaseDefaultReadOptions is the store-side release of
// RocksDB.defaultReadOptions_ proposed in apache/kafka PR #23085
// (RocksDBStore.releaseDefaultReadOptions; closed, not merged: no Kafka release
// has it): idempotent, safe on a nil DB.
func (r *rocksDB) releaseDefaultReadOptions() {
	if r == nil {
		return
	}
	r.defaultReadNative.Close()
}
