package lifecycle

import (
	"github.com/linxGnu/grocksdb"
)

// This file is the one place where the stores create native objects. Each
// constructor registers the object with the ledger and returns it with its
// ledger record; destroying goes through that record (Native.Close), so the
// ledger always knows what is still owned.

func (l *Ledger) newOptions(label string) (*grocksdb.Options, *Native) {
	o := grocksdb.NewDefaultOptions()
	return o, l.track(KindOptions, label, o.Destroy)
}

func (l *Ledger) newTableOptions(label string) (*grocksdb.BlockBasedTableOptions, *Native) {
	o := grocksdb.NewDefaultBlockBasedTableOptions()
	return o, l.track(KindTableOptions, label, o.Destroy)
}

func (l *Ledger) newLRUCache(label string, capacity uint64) (*grocksdb.Cache, *Native) {
	c := grocksdb.NewLRUCache(capacity)
	return c, l.track(KindCache, label, c.Destroy)
}

func (l *Ledger) newReadOptions(label string) (*grocksdb.ReadOptions, *Native) {
	o := grocksdb.NewDefaultReadOptions()
	return o, l.track(KindReadOptions, label, o.Destroy)
}

func (l *Ledger) newWriteOptions(label string) (*grocksdb.WriteOptions, *Native) {
	o := grocksdb.NewDefaultWriteOptions()
	return o, l.track(KindWriteOptions, label, o.Destroy)
}

func (l *Ledger) newFlushOptions(label string) (*grocksdb.FlushOptions, *Native) {
	o := grocksdb.NewDefaultFlushOptions()
	return o, l.track(KindFlushOptions, label, o.Destroy)
}

func (l *Ledger) newWriteBatch(label string) (*grocksdb.WriteBatch, *Native) {
	b := grocksdb.NewWriteBatch()
	return b, l.track(KindWriteBatch, label, b.Destroy)
}

func (l *Ledger) newWriteBatchFrom(label string, data []byte) (*grocksdb.WriteBatch, *Native) {
	b := grocksdb.WriteBatchFrom(data)
	return b, l.track(KindWriteBatch, label, b.Destroy)
}

func (l *Ledger) newIteratorCF(label string, db *grocksdb.DB, ro *grocksdb.ReadOptions, cf *grocksdb.ColumnFamilyHandle) (*grocksdb.Iterator, *Native) {
	it := db.NewIteratorCF(ro, cf)
	return it, l.track(KindIterator, label, it.Close)
}

// openDB opens a RocksDB with the named column families and registers the DB and
// each handle. On error nothing is registered and nothing is left open.
func (l *Ledger) openDB(opts *grocksdb.Options, path string, cfNames []string, cfOpts []*grocksdb.Options) (*grocksdb.DB, *Native, []*grocksdb.ColumnFamilyHandle, []*Native, error) {
	db, handles, err := grocksdb.OpenDbColumnFamilies(opts, path, cfNames, cfOpts)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	dbn := l.track(KindDB, "db", db.Close)
	hn := make([]*Native, len(handles))
	for i, h := range handles {
		hn[i] = l.track(KindCFHandle, "cf:"+cfNames[i], h.Destroy)
	}
	return db, dbn, handles, hn, nil
}
