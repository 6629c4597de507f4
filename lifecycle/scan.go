package lifecycle

// Scan reads every record of the store's data column families (the dual
// accessor's old and new ones, as Kafka's dual accessor's all() merges them)
// through one iterator each, as Kafka's RocksDBStore.all() does
// (SingleColumnFamilyAccessor.all: db.newIterator(columnFamily)), closes the
// iterators and returns the records read. It reads through the block cache, so
// the blocks of the store's SST files read are cached.
func (s *Store) Scan() (int, error) {
	if s.closed {
		return 0, ErrClosed
	}
	n := 0
	for _, c := range s.acc.data {
		it, in := s.env.Ledger.newIteratorCF("scan", s.db, s.acc.ro, c.h)
		for it.SeekToFirst(); it.Valid(); it.Next() {
			n++
		}
		err := it.Err()
		_ = in.Close()
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Scan reads every record of every open segment, oldest first (Kafka's
// window store fetchAll over the live segments), and returns the records
// read.
func (w *WindowStore) Scan() (int, error) {
	if w.closed {
		return 0, ErrClosed
	}
	n := 0
	for _, id := range w.sortedIDs() {
		k, err := w.segments[id].Scan()
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
