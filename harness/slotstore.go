package harness

import (
	"errors"

	"github.com/rocksleak/rocksleak/lifecycle"
)

// slotStore is a slot's open store, whichever kind the scenario runs (a kv
// store or a window store): what the topology writes, reads back, commits,
// fails and closes. The two kinds differ only here.
type slotStore interface {
	// logKey is the changelog key of a record of key written at stream time
	// ts: a kv store keeps one version per key (ts is dropped), a window
	// store one per key and timestamp.
	logKey(key string, ts int64) logKey
	// put writes one record.
	put(k logKey, value []byte) error
	// replay writes the changelog records keys, in order, into the empty
	// store (a restore), batch records per restore batch.
	replay(keys []logKey, value func(logKey) []byte, batch int) error
	// live reports whether a record at stream time ts is still held (a kv
	// store holds every record; a window store drops expired segments).
	live(ts int64) bool
	// read returns the stored value of k (a live record).
	read(k logKey) ([]byte, error)
	armCloseFault(f lifecycle.Fault)
	// committed is called after every commit of the step.
	committed()
	commit(offsets map[string]int64) error
	close() error
}

// initTries is how many times an operation that failed only by an injected
// init failure (lifecycle.ErrInjectedInit) is tried: once and up to five
// retries. Opening a store, reopening it for a restore and opening a window
// segment on a put all use it (before, the open loop also tried 6 times).
const initTries = 6

// retryInit calls op until it succeeds, fails with an error that is not an
// injected init failure, or has been tried initTries times, and returns its
// last error.
func retryInit(op func() error) error {
	var err error
	for range initTries {
		if err = op(); err == nil || !errors.Is(err, lifecycle.ErrInjectedInit) {
			return err
		}
	}
	return err
}

// kvSlot is a kv store: one version per key.
type kvSlot struct{ s *lifecycle.Store }

func (kvSlot) logKey(key string, _ int64) logKey { return logKey{key: key} }
func (k kvSlot) put(lk logKey, v []byte) error   { return k.s.Put([]byte(lk.key), v) }
func (k kvSlot) replay(keys []logKey, value func(logKey) []byte, _ int) error {
	recs := make([]lifecycle.Record, 0, len(keys))
	for _, lk := range keys {
		recs = append(recs, lifecycle.Record{Key: []byte(lk.key), Value: value(lk)})
	}
	return k.s.PutBatch(recs)
}
func (kvSlot) live(int64) bool                         { return true }
func (k kvSlot) read(lk logKey) ([]byte, error)        { return k.s.Get([]byte(lk.key)) }
func (k kvSlot) armCloseFault(f lifecycle.Fault)       { k.s.ArmCloseFault(f) }
func (kvSlot) committed()                              {}
func (k kvSlot) commit(offsets map[string]int64) error { return k.s.Commit(offsets) }
func (k kvSlot) close() error                          { return k.s.Close() }

// windowSlot is a window store: segments by stream time, rolled as it goes.
type windowSlot struct{ w *lifecycle.WindowStore }

func (windowSlot) logKey(key string, ts int64) logKey { return logKey{key: key, ts: ts} }

// put retries a segment open that failed by injection and drops failed
// close-time marker writes of the segments it rolled (see nonMarker).
func (w windowSlot) put(lk logKey, v []byte) error {
	return retryInit(func() error { return nonMarker(w.w.Put([]byte(lk.key), lk.ts, v)) })
}

// replay writes the changelog in restore batches (lifecycle.WindowStore.RestoreBatch:
// stream time advances to each batch's end first); segment opens that failed
// by injection are retried record by record, and failed close-time marker
// writes of the segments the restore expires are dropped (see nonMarker).
func (w windowSlot) replay(keys []logKey, value func(logKey) []byte, batch int) error {
	batch = max(batch, 1)
	var errs []error
	for i := 0; i < len(keys); i += batch {
		recs := make([]lifecycle.WindowRecord, 0, batch)
		for _, lk := range keys[i:min(i+batch, len(keys))] {
			recs = append(recs, lifecycle.WindowRecord{Key: []byte(lk.key), Ts: lk.ts, Value: value(lk)})
		}
		if err := retryInit(func() error { return nonMarker(w.w.RestoreBatch(recs)) }); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
func (w windowSlot) live(ts int64) bool                    { return w.w.Live(ts) }
func (w windowSlot) read(lk logKey) ([]byte, error)        { return w.w.Fetch([]byte(lk.key), lk.ts) }
func (w windowSlot) armCloseFault(f lifecycle.Fault)       { w.w.ArmCloseFault(f) }
func (w windowSlot) committed()                            { w.w.DisarmCloseFault() }
func (w windowSlot) commit(offsets map[string]int64) error { return w.w.Commit(offsets) }
func (w windowSlot) close() error                          { return w.w.Close() }
