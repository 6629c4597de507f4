package goengine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
)

// open (re)opens a slot's store. An unclean status under exactly-once is a
// TaskCorruptedException: the whole task is wiped and every store of it
// restored (see corruptTask). A store whose path cannot be opened (under
// no-safety-net, a pinned DB holds its LOCK) is a task error, after which the
// task moves the store to a fresh directory and restores it there. Injected
// init failures are retried.
func (t *Topology) open(s *slot) {
	if s.wiped {
		s.wiped = false
		t.restore(s, false)
		return
	}
	err := retryInit(func() error { return t.tryOpen(s, t.streamTime) })
	switch {
	case err == nil:
		if t.stale(s) {
			t.catchUp(s)
		}
		t.verify(s)
	case errors.Is(err, lifecycle.ErrUncleanStatus):
		t.corruptTask(s)
	default:
		t.taskError(s, err)
		t.restore(s, true)
	}
}

// corruptTask is Kafka's handling of a TaskCorruptedException under
// exactly-once (RocksDBStore.openDB turns the accessor's "Invalid state during
// store open" into one): the task is closed dirty, and
// StateManagerUtil.closeStateManager, with wipeStateStore = !closeClean &&
// eosEnabled, deletes the task's whole directory (every store of the task, not
// only the corrupted one); then the task is revived and every store restores
// from its changelog. Under no-safety-net a DB pinned by an earlier failed
// close may still hold files in that directory, so the task's stores move to
// a fresh directory instead (the harness's stand-in for a wipe it cannot do
// safely: Kafka on RocksJava never meets it).
func (t *Topology) corruptTask(s *slot) {
	tk := t.tasks[s.task]
	var reopen []*slot
	for _, o := range tk.stores {
		if o == s {
			continue
		}
		if o.store != nil {
			t.closeSlot(o)
			reopen = append(reopen, o)
		} else {
			o.wiped = true
		}
	}
	if t.sem == lifecycle.NoSafetyNet {
		for _, o := range tk.stores {
			o.gen++
		}
	} else {
		_ = os.RemoveAll(filepath.Join(t.root, fmt.Sprintf("task-%d", s.task)))
	}
	t.restore(s, false)
	for _, o := range reopen {
		t.restore(o, false)
	}
}

func (t *Topology) tryOpen(s *slot, streamTime int64) error {
	if t.sc.Store == scenarios.StoreWindow {
		w, err := lifecycle.OpenWindow(t.env, t.windowConfig(s), streamTime)
		if err != nil {
			return err
		}
		s.store = windowSlot{w}
		return nil
	}
	cfg := t.storeConfig(s)
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o755); err != nil {
		return err
	}
	st, err := lifecycle.Open(t.env, cfg)
	if err != nil {
		return err
	}
	s.store = kvSlot{st}
	return nil
}

func (t *Topology) taskError(s *slot, err error) {
	t.taskErrors++
	where := fmt.Sprintf("task %d %s", s.task, t.storeName(s))
	t.taskErrorEx.Add(where, err.Error())
	t.lastTaskError = where + ": " + schema.CollapseError(err.Error())
	t.storageFaults.Add(err.Error())
	t.tellTaskError(t.lastTaskError, err.Error())
}

// tellTaskError sends msg (full: the error's text) through tell when it is the
// run's first task error or the first naming one of its storage faults, so
// the parent knows it should the child die before its summary.
func (t *Topology) tellTaskError(msg, full string) {
	if t.tell == nil {
		return
	}
	faults := schema.StorageFaults(full)
	send := len(t.told) == 0
	for _, k := range faults {
		send = send || !t.told[k]
	}
	if !send {
		return
	}
	if t.told == nil {
		t.told = map[string]bool{}
	}
	t.told[""] = true
	for _, k := range faults {
		t.told[k] = true
	}
	t.tell(schema.TaskErrorEvent{Error: msg, Faults: faults})
}

// restore wipes the store (or, when its path is held, moves it to a fresh
// directory), opens it empty and replays its changelog, holding the
// scenario's restore scratch memory while it does. A window store opens at
// stream time −1 and replays its changelog in restore batches, creating and
// expiring segments as the batches advance its stream time; those segment
// lifecycles are counted apart.
func (t *Topology) restore(s *slot, moveAway bool) {
	begin := time.Now()
	scratch := lifecycle.NewScratch(t.sc.RestoreScratchBytes)
	defer scratch.Free()
	if moveAway {
		s.gen++
	} else {
		_ = os.RemoveAll(t.storePath(s))
	}
	lc := t.env.Counts().Lifecycles.Load()
	if err := retryInit(func() error { return t.tryOpen(s, -1) }); err != nil {
		t.taskError(s, fmt.Errorf("restore: %w", err))
		return
	}
	n, err := t.replay(s)
	if err != nil {
		t.taskError(s, fmt.Errorf("restore: %w", err))
	}
	t.restoreLifecycles += t.env.Counts().Lifecycles.Load() - lc
	t.restored += n
	t.restoreDone(restoreEntry{d: time.Since(begin), records: n})
	if err != nil {
		// Kafka's restore would have stopped at the error, the task not
		// running: what the store misses is still in the changelog.
		t.verifyInto(s, &t.unavailable)
		return
	}
	t.verify(s)
}

// restoreDone counts a restore (its duration and records replayed).
func (t *Topology) restoreDone(e restoreEntry) {
	if err := t.restoreLog.add(e); err != nil {
		t.logFailed(err)
	}
}

func (t *Topology) storePath(s *slot) string {
	if t.sc.Store == scenarios.StoreWindow {
		return filepath.Join(t.taskDir(s), t.storeName(s))
	}
	return t.storeConfig(s).Path
}

// maxReplayErrors is how many restore batches' errors a replay keeps (the
// count of the others is added).
const maxReplayErrors = 3

// replay writes the store's changelog into it, read from its file in restore
// batches of restore_batch_records records, as a restore consumer fetches
// (one batch held at a time), and returns the records replayed. The file is
// replayed whole, as an uncompacted changelog topic is: every record, not
// only each key's latest; a window store skips the records older than the
// topic's retention (see scanLog).
func (t *Topology) replay(s *slot) (int64, error) {
	size := max(t.sc.RestoreBatchRecords, 1)
	value := func(r changelog.Record) []byte { return t.value(s, r) }
	var n, failed int64
	var errs []error
	write := func() {
		if len(t.batch) == 0 {
			return
		}
		if err := s.store.restoreBatch(t.batch, value); err != nil {
			if failed++; len(errs) < maxReplayErrors {
				errs = append(errs, err)
			}
		}
		n += int64(len(t.batch))
		clear(t.batch) // let the batch's keys go
		t.batch = t.batch[:0]
	}
	if err := t.scanLog(s, func(e changelog.Entry) {
		t.batch = append(t.batch, changelog.Record{Key: string(e.Key), Ts: e.Ts, Ver: e.Ver})
		if len(t.batch) >= size {
			write()
		}
	}); err != nil {
		t.logFailed(err)
	}
	write()
	if failed > int64(len(errs)) {
		errs = append(errs, fmt.Errorf("and %d more failed restore batches", failed-int64(len(errs))))
	}
	return n, errors.Join(errs...)
}

// catchUp replays the changelog into a store that reopened behind it (the
// restore from a stale checkpointed offset), counted as a restore.
func (t *Topology) catchUp(s *slot) {
	begin := time.Now()
	n, err := t.replay(s)
	if err != nil {
		t.taskError(s, fmt.Errorf("restore: %w", err))
	}
	t.restored += n
	t.restoreDone(restoreEntry{d: time.Since(begin), records: n})
}

// verify reads back the latest changelog record of every key the store
// should hold (see latestLive) and counts the ones missing or wrong.
func (t *Topology) verify(s *slot) { t.verifyInto(s, &t.lost) }

// verifyInto is verify counting the missing or wrong records in *missing.
func (t *Topology) verifyInto(s *slot, missing *int64) {
	if t.latestLive(s) != nil {
		return
	}
	for k, v := range t.latest {
		if s.store == nil {
			t.unavailable++ // still in the changelog: not lost
			continue
		}
		r := changelog.Record{Key: k.key, Ts: v.ts, Ver: v.ver}
		got, err := s.store.read(r)
		t.verified++
		if err != nil || !bytes.Equal(got, t.value(s, r)) {
			*missing++
		}
	}
}

// nonMarker drops failed close-time marker writes (a close that went on, which
// the stores count themselves) from a joined error and returns the rest.
func nonMarker(err error) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var rest []error
		for _, e := range j.Unwrap() {
			if e = nonMarker(e); e != nil {
				rest = append(rest, e)
			}
		}
		return errors.Join(rest...)
	}
	if errors.Is(err, lifecycle.ErrMarkerWrite) {
		return nil
	}
	return err
}
