package goengine

import (
	"errors"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
)

// slotStore is a slot's open store, whichever kind the scenario runs (a kv
// store or a window store): what the topology writes, reads back, commits,
// fails and closes. The two kinds differ only here.
type slotStore interface {
	// put writes one record.
	put(r changelog.Record, value []byte) error
	// restoreBatch writes one restore batch of changelog records, in order,
	// into the store (a restore or a catch-up).
	restoreBatch(recs []changelog.Record, value func(changelog.Record) []byte) error
	// live reports whether a record at stream time ts is still held (a kv
	// store holds every record; a window store drops expired segments).
	live(ts int64) bool
	// read returns the stored value of r's key (a window store: at r's
	// timestamp).
	read(r changelog.Record) ([]byte, error)
	// scan reads every record the store holds (op range) and returns how
	// many it read.
	scan() (int, error)
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

func (k kvSlot) put(r changelog.Record, v []byte) error { return k.s.Put([]byte(r.Key), v) }

// restoreBatch writes the batch as one write batch (Kafka's
// RocksDBStore.restoreBatch: one WriteBatch per poll of the restore consumer).
func (k kvSlot) restoreBatch(recs []changelog.Record, value func(changelog.Record) []byte) error {
	batch := make([]lifecycle.Record, 0, len(recs))
	for _, r := range recs {
		batch = append(batch, lifecycle.Record{Key: []byte(r.Key), Value: value(r)})
	}
	return k.s.PutBatch(batch)
}
func (kvSlot) live(int64) bool                           { return true }
func (k kvSlot) read(r changelog.Record) ([]byte, error) { return k.s.Get([]byte(r.Key)) }
func (k kvSlot) scan() (int, error)                      { return k.s.Scan() }
func (k kvSlot) armCloseFault(f lifecycle.Fault)         { k.s.ArmCloseFault(f) }
func (kvSlot) committed()                                {}
func (k kvSlot) commit(offsets map[string]int64) error   { return k.s.Commit(offsets) }
func (k kvSlot) close() error                            { return k.s.Close() }

// windowSlot is a window store: segments by stream time, rolled as it goes.
type windowSlot struct{ w *lifecycle.WindowStore }

// put retries a segment open that failed by injection and drops failed
// close-time marker writes of the segments it rolled (see nonMarker).
func (w windowSlot) put(r changelog.Record, v []byte) error {
	return retryInit(func() error { return nonMarker(w.w.Put([]byte(r.Key), r.Ts, v)) })
}

// restoreBatch writes one restore batch (lifecycle.WindowStore.RestoreBatch:
// stream time advances to the batch's end first); a segment open that failed
// by injection is retried, and failed close-time marker writes of the
// segments the batch expires are dropped (see nonMarker).
func (w windowSlot) restoreBatch(recs []changelog.Record, value func(changelog.Record) []byte) error {
	batch := make([]lifecycle.WindowRecord, 0, len(recs))
	for _, r := range recs {
		batch = append(batch, lifecycle.WindowRecord{Key: []byte(r.Key), Ts: r.Ts, Value: value(r)})
	}
	return retryInit(func() error { return nonMarker(w.w.RestoreBatch(batch)) })
}
func (w windowSlot) live(ts int64) bool                      { return w.w.Live(ts) }
func (w windowSlot) read(r changelog.Record) ([]byte, error) { return w.w.Fetch([]byte(r.Key), r.Ts) }
func (w windowSlot) scan() (int, error)                      { return w.w.Scan() }
func (w windowSlot) armCloseFault(f lifecycle.Fault)         { w.w.ArmCloseFault(f) }
func (w windowSlot) committed()                              { w.w.DisarmCloseFault() }
func (w windowSlot) commit(offsets map[string]int64) error   { return w.w.Commit(offsets) }
func (w windowSlot) close() error                            { return w.w.Close() }
