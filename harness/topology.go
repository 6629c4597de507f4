package harness

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

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/workload"
)

// maxTaskErrorExamples is how many task errors a summary spells out.
const maxTaskErrorExamples = 5

// topology is one model's tasks and stores, driven step by step through
// stream time. It runs in the child process, on one goroutine.
type topology struct {
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

	taskErrors   int64
	taskErrorEx  []string
	lost         int64
	verified     int64
	restoreTimes []time.Duration
	restored     int64
	// restoreLifecycles counts the segment lifecycles that happened during
	// restores (window stores restoring from stream time −1).
	restoreLifecycles int64

	// after is called after every store operation that may have completed a
	// lifecycle; it is how the instruments look in without the stores knowing.
	after func()

	// instance is set when the topology runs as one instance of a fleet
	// (rocksleak rehearse): record keys are a function of the task, store
	// and timestamp (not of one random stream over all tasks), so any
	// instance owning a task writes the same records; each store commits
	// the offset of its own changelog partition (its task's); and onWrite
	// sees every record written.
	instance bool
	onWrite  func(s *slot, lk logKey, ver int64)
}

type task struct {
	id     int
	stores []*slot
}

// slot is one logical store of a task: its current instance, its directory
// generation and the changelog the harness keeps for it.
type slot struct {
	task, idx int
	gen       int
	store     slotStore // nil while the store is closed or could not be opened
	// log is the changelog: the latest version of each key (window stores:
	// of each key at each timestamp).
	log    map[logKey]int64
	offset int64
	// wiped: the task's directory was wiped (exactly-once corruption) while
	// this store was closed; its next open restores it from scratch.
	wiped bool
}

type logKey struct {
	key string
	ts  int64
}

// newTopology builds a model's topology; with synthetic, every lifecycle also
// leaks the scenario's SyntheticLeakBytes (a "+synthetic" model).
func newTopology(sc scenarios.Scenario, model lifecycle.Model, synthetic bool, seed int64, root string) (*topology, error) {
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
	t := &topology{sc: sc, model: model, sem: sem, env: env, faults: inj, seed: useed,
		rng: rand.New(rand.NewPCG(useed, 0x5eed)), root: root, after: func() {}}
	for i := range sc.Tasks {
		tk := &task{id: i}
		for j := range sc.StoresPerTask {
			tk.stores = append(tk.stores, &slot{task: i, idx: j, log: map[logKey]int64{}})
		}
		t.tasks = append(t.tasks, tk)
	}
	return t, nil
}

func (t *topology) storeName(s *slot) string { return fmt.Sprintf("store-%d", s.idx) }

func (t *topology) taskDir(s *slot) string {
	return filepath.Join(t.root, fmt.Sprintf("task-%d", s.task), fmt.Sprintf("gen-%d", s.gen))
}

func (t *topology) storeConfig(s *slot) lifecycle.Config {
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

func (t *topology) windowConfig(s *slot) lifecycle.WindowConfig {
	cfg := t.storeConfig(s)
	cfg.Path = ""
	return lifecycle.WindowConfig{Dir: t.taskDir(s), Name: t.storeName(s),
		RetentionMs: t.sc.RetentionMs, SegmentIntervalMs: t.sc.SegmentInterval(), Segment: cfg}
}

// start opens every store of every task.
func (t *topology) start(ctx context.Context) error {
	for _, tk := range t.tasks {
		for _, s := range tk.stores {
			if ctx.Err() != nil {
				return nil
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
func (t *topology) seedOldFormat(s *slot) error {
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
		key := workload.Key(k)
		recs = append(recs, lifecycle.Record{Key: []byte(key), Value: t.value(s, key, 0, 0)})
		s.log[logKey{key: key}] = 0
	}
	err = errors.Join(st.PutBatch(recs), st.Close())
	if err != nil {
		return fmt.Errorf("seeding old-format data: %w", err)
	}
	return nil
}

// value is the record value of key at version ver: deterministic, so the
// changelog keeps only versions and the harness can verify and replay
// (workload.RecordValue, which the JVM child computes too).
func (t *topology) value(s *slot, key string, ts, ver int64) []byte {
	return workload.RecordValue(t.seed, t.sc.ValueBytes, s.task, s.idx, key, ts, ver)
}

// open (re)opens a slot's store. An unclean status under exactly-once is a
// TaskCorruptedException: the whole task is wiped and every store of it
// restored (see corruptTask). A store whose path cannot be opened (under
// no-safety-net, a pinned DB holds its LOCK) is a task error, after which the
// task moves the store to a fresh directory and restores it there. Injected
// init failures are retried.
func (t *topology) open(s *slot) {
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
func (t *topology) corruptTask(s *slot) {
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

func (t *topology) tryOpen(s *slot, streamTime int64) error {
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

func (t *topology) taskError(s *slot, err error) {
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
func (t *topology) restore(s *slot, moveAway bool) {
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
	t.restoreTimes = append(t.restoreTimes, time.Since(begin))
	t.verify(s)
}

func (t *topology) storePath(s *slot) string {
	if t.sc.Store == scenarios.StoreWindow {
		return filepath.Join(t.taskDir(s), t.storeName(s))
	}
	return t.storeConfig(s).Path
}

// replay writes the changelog into the (empty) store.
func (t *topology) replay(s *slot) (int64, error) {
	keys := s.sortedLog()
	err := s.store.replay(keys, func(k logKey) []byte { return t.value(s, k.key, k.ts, s.log[k]) }, t.sc.RestoreBatchRecords)
	return int64(len(keys)), err
}

func (s *slot) sortedLog() []logKey {
	keys := make([]logKey, 0, len(s.log))
	for k := range s.log {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].ts != keys[j].ts {
			return keys[i].ts < keys[j].ts
		}
		return keys[i].key < keys[j].key
	})
	return keys
}

// stale reports whether the reopened store misses changelog records it should
// hold: with no flush on commit (Kafka 4.3), a DB whose close could not flush
// (a sticky failure leaves it in a failed state) keeps only what was last
// flushed, its committed changelog offset included. Kafka sees this through
// the stale persisted offset and restores from it (KAFKA-20663); the harness,
// which keeps the changelog as latest versions rather than offsets, sees it by
// reading the records back.
func (t *topology) stale(s *slot) bool {
	for k, ver := range s.log {
		if s.store == nil || !s.store.live(k.ts) {
			continue
		}
		got, err := s.store.read(k)
		if err != nil || !bytes.Equal(got, t.value(s, k.key, k.ts, ver)) {
			return true
		}
	}
	return false
}

// catchUp replays the changelog into a store that reopened behind it (the
// restore from a stale checkpointed offset), counted as a restore.
func (t *topology) catchUp(s *slot) {
	begin := time.Now()
	n, err := t.replay(s)
	if err != nil {
		t.taskError(s, fmt.Errorf("restore: %w", err))
	}
	t.restored += n
	t.restoreTimes = append(t.restoreTimes, time.Since(begin))
}

// verify reads back every changelog record the store should hold and counts
// the ones missing or wrong.
func (t *topology) verify(s *slot) {
	for k, ver := range s.log {
		if s.store == nil {
			t.lost++
			continue
		}
		if !s.store.live(k.ts) {
			continue
		}
		got, err := s.store.read(k)
		t.verified++
		if err != nil || !bytes.Equal(got, t.value(s, k.key, k.ts, ver)) {
			t.lost++
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
func (t *topology) step(ctx context.Context) {
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
func (t *topology) stepTask(ctx context.Context, tk *task, prev int64) bool {
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
	}
	// Samples are taken at the same phase of every task's step: after
	// its commit (which, as in Kafka 4.3, does not flush).
	t.after()
	return true
}

// rolls reports whether stream time moving from prev to now expires a segment.
func (t *topology) rolls(prev, now int64) bool {
	iv := t.sc.SegmentInterval()
	minLive := func(st int64) int64 { return max(st-t.sc.RetentionMs, 0) / iv }
	return minLive(now) != minLive(prev)
}

// armTask draws one close fault per store of the task; under the cascade, one
// failure fails the close of every store of the task in this step.
func (t *topology) armTask(tk *task) {
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

func (t *topology) write(s *slot, from int64) {
	n := t.sc.RecordsPerStep
	for i := range n {
		ts := from + int64(i+1)*t.sc.StepMs/int64(n)
		var key string
		if t.instance {
			key = workload.Key(int(recordKeyHash(t.seed, s.task, s.idx, ts) % uint64(t.sc.KeySpread)))
		} else {
			key = workload.Key(t.rng.IntN(t.sc.KeySpread))
		}
		if s.store == nil {
			return // the store could not be opened; its task error is counted
		}
		lk := s.store.logKey(key, ts)
		ver := s.log[lk] + 1
		err := s.store.put(lk, t.value(s, lk.key, lk.ts, ver))
		if err == nil {
			s.log[lk] = ver
		}
		if err != nil {
			t.taskError(s, err)
			continue
		}
		s.offset++
		t.records++
		if t.onWrite != nil {
			t.onWrite(s, lk, ver)
		}
	}
	if s.store != nil && t.sc.Store == scenarios.StoreWindow {
		t.pruneLog(s)
	}
}

// pruneLog forgets the changelog records the changelog topic no longer
// holds: a window store's changelog keeps records for the retention plus
// windowstore.changelog.additional.retention.ms of stream time.
func (t *topology) pruneLog(s *slot) {
	oldest := t.streamTime - t.sc.RetentionMs - t.sc.AdditionalRetentionMs
	for k := range s.log {
		if k.ts < oldest {
			delete(s.log, k)
		}
	}
}

func (t *topology) commit(s *slot) {
	offsets := make(map[string]int64, t.sc.ChangelogPartitions)
	switch {
	case t.instance:
		// One changelog partition per store: the task's.
		offsets[t.changelogKey(s)] = s.offset
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
func (t *topology) rebalance(ctx context.Context) {
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
func (t *topology) reopenTask(ctx context.Context, tk *task) bool {
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

func (t *topology) closeSlot(s *slot) {
	if s.store != nil {
		_ = s.store.close()
		s.store = nil
	}
}

// stop closes every store as the model closes it, then drops the shared
// bounded-memory objects (after the stores, as the config setter's close
// leaves them to the application).
func (t *topology) stop() {
	for _, tk := range t.tasks {
		for _, s := range tk.stores {
			t.closeSlot(s)
		}
	}
	if t.env.Bounded != nil {
		_ = t.env.Bounded.Close()
	}
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}
