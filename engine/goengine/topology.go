package goengine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"time"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
)

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

	taskErrors int64
	// taskErrorEx holds the distinct task errors' texts and counts;
	// lastTaskError is the latest one's (collapsed and capped).
	taskErrorEx   schema.TaskErrorTally
	lastTaskError string
	// storageFaults counts the task errors and close errors that name a
	// storage fault (ENOSPC, EROFS, EIO), by fault.
	storageFaults schema.StorageFaultTally
	// told is what tell has sent: the first task error, and the first naming
	// each storage fault; tell (nil: no one) sends a task error as it happens.
	told     map[string]bool
	tell     func(schema.TaskErrorEvent)
	lost     int64
	verified int64
	// restoreLog holds the restores' durations and records replayed (in a
	// file: see durationLog) and counts them.
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
		logRoot: root, restoreLog: &durationLog{dir: root}, latest: map[logKey]logVersion{},
		storageFaults: schema.StorageFaultTally{}}
	for i := range sc.Tasks {
		tk := &task{id: i}
		for j := range sc.StoresPerTask {
			tk.stores = append(tk.stores, &slot{task: i, idx: j})
		}
		t.tasks = append(t.tasks, tk)
	}
	return t, nil
}

// useLogDir keeps the topology's own files, its changelogs and its restores'
// durations, in dir, the harness's directory beside the run (Job.ChangelogDir),
// instead of under the state directory under test; "" keeps them there.
func (t *Topology) useLogDir(dir string) {
	if dir != "" {
		t.logRoot, t.restoreLog.dir = dir, dir
	}
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
