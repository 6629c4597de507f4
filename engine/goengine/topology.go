package goengine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/workload"
)

// maxTaskErrorExamples is how many task errors a summary spells out.
const maxTaskErrorExamples = 5

// Topology is one model's tasks and stores, driven step by step through
// stream time. It runs in the child process, on one goroutine: RunChild
// drives it over the whole scenario; another driver (package fleet's
// instances) drives chosen tasks through the methods in topology_tasks.go.
type Topology struct {
	sc     scenarios.Scenario
	model  lifecycle.Model
	sem    lifecycle.Semantics
	env    *lifecycle.Env
	faults *lifecycle.Injector
	rng    *rand.Rand
	seed   uint64
	root   string

	tasks      []*task
	streamTime int64
	steps      int64
	records    int64
	rebalances int64

	taskErrors  int64
	taskErrorEx []string
	lost        int64
	verified    int64
	// restoreLog holds the restores' durations (in a file: see durationLog)
	// and counts them.
	restoreLog *durationLog
	restored   int64
	// restoreLifecycles counts the segment lifecycles that happened during
	// restores (window stores restoring from stream time −1).
	restoreLifecycles int64

	// unavailable and writeFailed are what a fault costs that is not data
	// loss (schema.Summary.RecordsLost says which is which).
	unavailable, writeFailed int64

	// after is called after every store operation that may have completed a
	// lifecycle; it is how the instruments look in without the stores knowing.
	after func()

	// logRoot holds the stores' changelog files (changelog.Path): the
	// child's state directory, or the job's ChangelogDir. ver is the last
	// version given to a put (a count of puts over the run, as workload's
	// schedule numbers them) unless hooks.Record gives them.
	logRoot string
	ver     int64
	// latest and batch are the transient views of a changelog file, reused
	// from one read to the next: the latest version of each key a store
	// should hold (see latestLive) and one restore batch (see replay).
	latest map[logKey]logVersion
	batch  []changelog.Record
	// logErr is the first failure to write or read a changelog file (the
	// instrument's, not the stores'): it stops the run.
	logErr error

	// hooks are another driver's choices (see Hook); nil ones keep the
	// topology's own.
	hooks Hooks
}

// Hooks let a driver other than RunChild (package fleet's instances) make
// choices the topology otherwise makes itself. A nil hook keeps the
// topology's own choice.
type Hooks struct {
	// Record names the i-th of the n records store id writes in the step
	// from stream time from, at stream time ts: its key and version. Its
	// own: a key drawn from one random stream over all tasks, the version
	// the count of puts over the run (as workload's schedule numbers them).
	Record func(id StoreID, from, ts int64, i, n int) (key string, ver int64)
	// Value is the value of record r of store id, wherever the topology
	// writes, reads back or replays it; it must be a function of its
	// arguments. Its own: workload.RecordValue with the job's seed.
	Value func(id StoreID, r changelog.Record) []byte
	// Partition is the offsets-CF key of store id's one changelog
	// partition: at a commit the store commits its changelog's whole offset
	// under it, and ResumeTask and CommittedOffsets read it back there. Its
	// own: the store's records spread over the scenario's
	// changelog_partitions partitions (a resumed store then catches up from
	// its changelog in full, and CommittedOffsets reports none).
	Partition func(id StoreID) string
	// Written sees every record a store accepted, once its changelog has it.
	Written func(id StoreID, r changelog.Record)
}

// Hook sets t's hooks; call it before the first store opens.
func (t *Topology) Hook(h Hooks) { t.hooks = h }

// id names slot s.
func (s *slot) id() StoreID { return StoreID{Task: s.task, Store: s.idx} }

type task struct {
	id     int
	stores []*slot
}

// slot is one logical store of a task: its current instance, its directory
// generation and the writer of its changelog partition's file.
type slot struct {
	task, idx int
	gen       int
	store     slotStore // nil while the store is closed or could not be opened
	// clog appends the records the store accepted to its changelog file (nil
	// until openLog); offset is the number of records in that file.
	clog   *changelog.Writer
	offset int64
	// wiped: the task's directory was wiped (exactly-once corruption) while
	// this store was closed; its next open restores it from scratch.
	wiped bool
}

// logKey is what a record replaces: a kv store keeps one version per key
// (ts is 0), a window store one per key and timestamp.
type logKey struct {
	key string
	ts  int64
}

// logVersion is the record a logKey holds: its timestamp and version.
type logVersion struct{ ts, ver int64 }

// logKey is the logKey of a record of key at ts in the scenario's stores.
func (t *Topology) logKey(key string, ts int64) logKey {
	if t.sc.Store == scenarios.StoreWindow {
		return logKey{key: key, ts: ts}
	}
	return logKey{key: key}
}

// newTopology builds a model's topology; with synthetic, every lifecycle also
// leaks the scenario's SyntheticLeakBytes (a "+synthetic" model).
func newTopology(sc scenarios.Scenario, model lifecycle.Model, synthetic bool, seed int64, root string) (*Topology, error) {
	sem, err := sc.Semantics()
	if err != nil {
		return nil, err
	}
	kind := lifecycle.NoFault
	if sc.CloseFailureRate > 0 {
		if kind, err = lifecycle.ParseFault(string(sc.CloseFailureKind)); err != nil {
			return nil, err
		}
	}
	useed := uint64(seed)
	inj, err := lifecycle.NewInjector(useed, sc.CloseFailureRate, kind, sc.InitFailureRate)
	if err != nil {
		return nil, err
	}
	env := lifecycle.NewEnv(inj)
	if sc.BoundedCacheBytes > 0 {
		// The docs' example: new LRUCache(TOTAL_OFF_HEAP_MEMORY, -1, false,
		// INDEX_FILTER_BLOCK_RATIO), not strict.
		bm, err := lifecycle.NewBoundedMemoryConfig(lifecycle.BoundedMemoryConfig{
			CacheBytes: sc.BoundedCacheBytes, WriteBufferBytes: sc.BoundedWriteBufferBytes,
			StrictCapacity: false, HighPriPoolRatio: 0.1})
		if err != nil {
			return nil, err
		}
		env.Bounded = bm
	}
	if synthetic {
		env.SyntheticLeakBytes = sc.SyntheticLeakBytes
	}
	t := &Topology{sc: sc, model: model, sem: sem, env: env, faults: inj, seed: useed,
		rng: rand.New(rand.NewPCG(useed, 0x5eed)), root: root, after: func() {},
		logRoot: root, restoreLog: &durationLog{dir: root}, latest: map[logKey]logVersion{}}
	for i := range sc.Tasks {
		tk := &task{id: i}
		for j := range sc.StoresPerTask {
			tk.stores = append(tk.stores, &slot{task: i, idx: j})
		}
		t.tasks = append(t.tasks, tk)
	}
	return t, nil
}

func (t *Topology) storeName(s *slot) string { return fmt.Sprintf("store-%d", s.idx) }

func (t *Topology) taskDir(s *slot) string {
	return filepath.Join(t.root, fmt.Sprintf("task-%d", s.task), fmt.Sprintf("gen-%d", s.gen))
}

func (t *Topology) storeConfig(s *slot) lifecycle.Config {
	layout := lifecycle.KV
	switch t.sc.Store {
	case scenarios.StoreMigrating:
		layout = lifecycle.Migrating
	case scenarios.StoreWindow:
		// The DSL's window stores are timestamped (Kafka's
		// RocksDBTimestampedSegmentedBytesStore over TimestampedSegments): a
		// segment's values carry their timestamp in the timestamped CF.
		layout = lifecycle.Timestamped
	}
	return lifecycle.Config{
		Path:        filepath.Join(t.taskDir(s), t.storeName(s)),
		Layout:      layout,
		Model:       t.model,
		Semantics:   t.sem,
		ExactlyOnce: t.sc.ExactlyOnce,
	}
}

func (t *Topology) windowConfig(s *slot) lifecycle.WindowConfig {
	cfg := t.storeConfig(s)
	cfg.Path = ""
	return lifecycle.WindowConfig{Dir: t.taskDir(s), Name: t.storeName(s),
		RetentionMs: t.sc.RetentionMs, SegmentIntervalMs: t.sc.SegmentInterval(), Segment: cfg}
}

// start opens every store of every task, each with an empty changelog.
func (t *Topology) start(ctx context.Context) error {
	for _, tk := range t.tasks {
		for _, s := range tk.stores {
			if ctx.Err() != nil {
				return nil
			}
			if err := t.openLog(s); err != nil {
				return err
			}
			if t.sc.Store == scenarios.StoreMigrating {
				if err := t.seedOldFormat(s); err != nil {
					return err
				}
			}
			t.open(s)
		}
		t.after()
	}
	return nil
}

// seedOldFormat writes every key once in the pre-upgrade format, so that the
// migrating store starts with old data and uses the dual accessor.
func (t *Topology) seedOldFormat(s *slot) error {
	env := lifecycle.NewEnv(nil) // setup, not the run under measurement
	cfg := t.storeConfig(s)
	cfg.Layout, cfg.Model, cfg.ExactlyOnce = lifecycle.KV, lifecycle.Fixed, false
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o755); err != nil {
		return err
	}
	st, err := lifecycle.Open(env, cfg)
	if err != nil {
		return fmt.Errorf("seeding old-format data: %w", err)
	}
	recs := make([]lifecycle.Record, 0, t.sc.KeySpread)
	for k := range t.sc.KeySpread {
		r := changelog.Record{Key: workload.Key(k)}
		recs = append(recs, lifecycle.Record{Key: []byte(r.Key), Value: t.value(s, r)})
		if _, err := s.clog.Append(r); err != nil {
			return fmt.Errorf("seeding old-format data: %w", err)
		}
		s.offset++
	}
	err = errors.Join(st.PutBatch(recs), st.Close(), s.clog.Flush())
	if err != nil {
		return fmt.Errorf("seeding old-format data: %w", err)
	}
	return nil
}

// value is the value of changelog record r of store s: deterministic, so the
// changelog keeps only keys, timestamps and versions and the harness can
// verify and replay (workload.RecordValue, which the JVM child computes too).
func (t *Topology) value(s *slot, r changelog.Record) []byte {
	if t.hooks.Value != nil {
		return t.hooks.Value(s.id(), r)
	}
	return workload.RecordValue(t.seed, t.sc.ValueBytes, s.task, s.idx, r.Key, r.Ts, r.Ver)
}

// openLog starts the writer of s's changelog file, whose s.offset records are
// already there.
func (t *Topology) openLog(s *slot) error {
	w, err := changelog.OpenWriter(changelog.Path(t.logRoot, s.task, s.idx), s.offset)
	if err != nil {
		return fmt.Errorf("changelog: %w", err)
	}
	s.clog = w
	return nil
}

// logFailed records a failure to write or read a changelog file; the first
// one stops the run (see RunChild).
func (t *Topology) logFailed(err error) {
	if t.logErr == nil {
		t.logErr = fmt.Errorf("changelog: %w", err)
	}
}

// flushLog commits s's changelog: its records written since the last flush
// go to its file.
func (t *Topology) flushLog(s *slot) {
	if s.clog != nil {
		if err := s.clog.Flush(); err != nil {
			t.logFailed(err)
		}
	}
}

// closeLogs flushes every changelog and lets its writer go.
func (t *Topology) closeLogs() {
	for _, tk := range t.tasks {
		for _, s := range tk.stores {
			if s.clog != nil {
				if err := s.clog.Close(); err != nil {
					t.logFailed(err)
				}
				s.clog = nil
			}
		}
	}
}

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
	if len(t.taskErrorEx) < maxTaskErrorExamples {
		t.taskErrorEx = append(t.taskErrorEx, fmt.Sprintf("task %d %s: %v", s.task, t.storeName(s), err))
	}
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
	t.restoreDone(time.Since(begin))
	if err != nil {
		// Kafka's restore would have stopped at the error, the task not
		// running: what the store misses is still in the changelog.
		t.verifyInto(s, &t.unavailable)
		return
	}
	t.verify(s)
}

// restoreDone counts a restore that took d.
func (t *Topology) restoreDone(d time.Duration) {
	if err := t.restoreLog.add(d); err != nil {
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

// scanLog flushes s's changelog and calls fn with each record of its file
// in offset order, the Entry's key valid during the call only. A window
// store's reader skips the records older than the changelog topic's
// retention: stream time − retention − windowstore.changelog.additional.retention.ms
// (cleanup.policy compact,delete; the broker would have deleted them).
func (t *Topology) scanLog(s *slot, fn func(changelog.Entry)) error {
	t.flushLog(s)
	floor := int64(math.MinInt64)
	if t.sc.Store == scenarios.StoreWindow {
		floor = t.streamTime - t.sc.RetentionMs - t.sc.AdditionalRetentionMs
	}
	return changelog.Scan(changelog.Path(t.logRoot, s.task, s.idx), func(e changelog.Entry) error {
		if e.Ts >= floor {
			fn(e)
		}
		return nil
	})
}

// live reports whether store s should hold a record at stream time ts: what
// its open store says; with none open, a window store's records in the
// segments live at the topology's stream time.
func (t *Topology) live(s *slot, ts int64) bool {
	if s.store != nil {
		return s.store.live(ts)
	}
	if t.sc.Store != scenarios.StoreWindow {
		return true
	}
	iv := t.sc.SegmentInterval()
	return ts/iv >= max(t.streamTime-t.sc.RetentionMs, 0)/iv
}

// latestLive fills t.latest with the last record of each key (window stores:
// each key and timestamp) of s's changelog that s should hold (see live), in
// one pass over its file. The map is the only view of a changelog the child
// holds and it is transient: reused from call to call, it holds at most
// key_spread entries for a kv store and the records of the live segments for
// a window store, whatever the run's length.
func (t *Topology) latestLive(s *slot) error {
	clear(t.latest)
	err := t.scanLog(s, func(e changelog.Entry) {
		if t.live(s, e.Ts) {
			t.latest[t.logKey(string(e.Key), e.Ts)] = logVersion{ts: e.Ts, ver: e.Ver}
		}
	})
	if err != nil {
		t.logFailed(err)
	}
	return err
}

// stale reports whether the reopened store misses changelog records it should
// hold: with no flush on commit (Kafka 4.3), a DB whose close could not flush
// (a sticky failure leaves it in a failed state) keeps only what was last
// flushed, its committed changelog offset included. Kafka sees this through
// the stale persisted offset and restores from it (KAFKA-20663); the harness
// sees it by reading the latest records back.
func (t *Topology) stale(s *slot) bool {
	if s.store == nil || t.latestLive(s) != nil {
		return false
	}
	for k, v := range t.latest {
		r := changelog.Record{Key: k.key, Ts: v.ts, Ver: v.ver}
		got, err := s.store.read(r)
		if err != nil || !bytes.Equal(got, t.value(s, r)) {
			return true
		}
	}
	return false
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
	t.restoreDone(time.Since(begin))
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

// step advances stream time by one step: every store of every task gets its
// records (window stores roll their segments as they go), then commits; every
// RebalanceEverySteps steps a share of the tasks is moved.
func (t *Topology) step(ctx context.Context) {
	t.steps++
	prev := t.streamTime
	t.streamTime += t.sc.StepMs
	for _, tk := range t.tasks {
		if !t.stepTask(ctx, tk, prev) {
			return
		}
	}
	if t.sc.RebalanceEverySteps > 0 && t.steps%int64(t.sc.RebalanceEverySteps) == 0 {
		t.rebalance(ctx)
	}
}

// stepTask gives every store of tk its records from stream time prev to
// t.streamTime, then commits them; false when ctx was cancelled midway.
func (t *Topology) stepTask(ctx context.Context, tk *task, prev int64) bool {
	cascade := t.sc.Cascade && t.sc.Store == scenarios.StoreWindow && t.rolls(prev, t.streamTime)
	if cascade {
		t.armTask(tk)
	}
	for _, s := range tk.stores {
		if ctx.Err() != nil {
			return false
		}
		t.write(s, prev)
	}
	for _, s := range tk.stores {
		t.commit(s)
		if s.store != nil {
			s.store.committed()
		}
		t.flushLog(s) // the changelog's commit, after the store's
	}
	// Samples are taken at the same phase of every task's step: after
	// its commit (which, as in Kafka 4.3, does not flush).
	t.after()
	return true
}

// rolls reports whether stream time moving from prev to now expires a segment.
func (t *Topology) rolls(prev, now int64) bool {
	iv := t.sc.SegmentInterval()
	minLive := func(st int64) int64 { return max(st-t.sc.RetentionMs, 0) / iv }
	return minLive(now) != minLive(prev)
}

// armTask draws one close fault per store of the task; under the cascade, one
// failure fails the close of every store of the task in this step.
func (t *Topology) armTask(tk *task) {
	f := lifecycle.NoFault
	for range tk.stores {
		if d := t.faults.NextClose(); d != lifecycle.NoFault {
			f = d
		}
	}
	for _, s := range tk.stores {
		if s.store != nil {
			s.store.armCloseFault(f)
		}
	}
}

// write puts the step's records into s; each one the store accepted is
// appended to its changelog. A record's key is drawn from the topology's
// random stream and its version is the count of puts over the run (the
// schedule's numbering), unless hooks.Record names them.
func (t *Topology) write(s *slot, from int64) {
	n := t.sc.RecordsPerStep
	for i := range n {
		ts := from + int64(i+1)*t.sc.StepMs/int64(n)
		var key string
		var ver int64
		if t.hooks.Record != nil {
			key, ver = t.hooks.Record(s.id(), from, ts, i, n)
		} else {
			key = workload.Key(t.rng.IntN(t.sc.KeySpread))
		}
		if s.store == nil {
			return // the store could not be opened; its task error is counted
		}
		if t.hooks.Record == nil {
			t.ver++
			ver = t.ver
		}
		r := changelog.Record{Key: key, Ts: ts, Ver: ver}
		if t.put(s, r, 0) && t.hooks.Written != nil {
			t.hooks.Written(s.id(), r)
		}
	}
}

func (t *Topology) commit(s *slot) {
	offsets := make(map[string]int64, t.sc.ChangelogPartitions)
	switch {
	case t.hooks.Partition != nil:
		// One changelog partition per store.
		offsets[t.hooks.Partition(s.id())] = s.offset
	default:
		for p := range t.sc.ChangelogPartitions {
			// The store's records are spread over its changelog partitions.
			offsets[lifecycle.ChangelogKey(fmt.Sprintf("app-%s-changelog", t.storeName(s)), p)] = s.offset / int64(t.sc.ChangelogPartitions)
		}
	}
	if s.store == nil {
		return
	}
	if err := s.store.commit(offsets); err != nil {
		t.taskError(s, fmt.Errorf("commit: %w", err))
	}
}

// rebalance closes every store of a share of the tasks and reopens them, as
// a task moving away and back (or a restart) does.
func (t *Topology) rebalance(ctx context.Context) {
	t.rebalances++
	n := int(math.Ceil(t.sc.RebalanceTasks * float64(len(t.tasks))))
	perm := t.rng.Perm(len(t.tasks))[:n]
	sort.Ints(perm)
	for _, i := range perm {
		if !t.reopenTask(ctx, t.tasks[i]) {
			return
		}
	}
}

// reopenTask closes every store of tk and reopens them; false when ctx was
// cancelled midway.
func (t *Topology) reopenTask(ctx context.Context, tk *task) bool {
	if t.sc.Cascade {
		t.armTask(tk)
	}
	for _, s := range tk.stores {
		t.closeSlot(s)
	}
	for _, s := range tk.stores {
		if ctx.Err() != nil {
			return false
		}
		t.open(s)
	}
	t.after()
	return true
}

func (t *Topology) closeSlot(s *slot) {
	if s.store != nil {
		_ = s.store.close()
		s.store = nil
	}
}

// Stop closes every store as the model closes it, then drops the shared
// bounded-memory objects (after the stores, as the config setter's close
// leaves them to the application).
func (t *Topology) Stop() {
	for _, tk := range t.tasks {
		for _, s := range tk.stores {
			t.closeSlot(s)
		}
	}
	if t.env.Bounded != nil {
		_ = t.env.Bounded.Close()
	}
	t.closeLogs()
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}
