package fleet

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/workload"
)

// A fleet's outputs: for every input record a task processes, the value its
// store returns when the record is read back right after the update. An
// instance hashes them per task (outputHash, in processing order); the
// parent computes the same hashes in memory from the input alone (Reference),
// without RocksDB, and the rehearsal compares the two.

// records are a fleet's input: every record of every task, a function of
// the fleet's seed, the task, the store and the timestamp alone, so that any
// instance owning a task writes the same records (they are an instance's
// topology's hooks, see hooks) and the parent can replay them (Reference).
type records struct {
	sc   scenarios.Scenario
	seed uint64
}

// recordKeyHash draws the key of the record a task writes into store idx
// at timestamp ts.
func recordKeyHash(seed uint64, task, idx int, ts int64) uint64 {
	return workload.SplitMix64(seed ^ uint64(task)<<48 ^ uint64(idx)<<40 ^ workload.SplitMix64(uint64(ts)))
}

// fleetVersion is the version of the i-th of the n records a task writes
// into a store at input step pos: unique within the store's changelog.
func fleetVersion(pos int64, n, i int) int64 { return pos*int64(n) + int64(i) + 1 }

// record is the key and version of the i-th of the n records store id
// writes in the step from stream time from, at ts (goengine.Hooks.Record).
func (rs records) record(id goengine.StoreID, from, ts int64, i, n int) (string, int64) {
	key := workload.Key(int(recordKeyHash(rs.seed, id.Task, id.Store, ts) % uint64(rs.sc.KeySpread)))
	return key, fleetVersion(from/rs.sc.StepMs, n, i)
}

// value is the value of record r of store id (goengine.Hooks.Value).
func (rs records) value(id goengine.StoreID, r changelog.Record) []byte {
	return workload.RecordValue(rs.seed, rs.sc.ValueBytes, id.Task, id.Store, r.Key, r.Ts, r.Ver)
}

// hashTs is the timestamp an output's hash takes for a record at ts: 0 in
// a kv store, which keeps one version per key.
func (rs records) hashTs(ts int64) int64 {
	if rs.sc.Store != scenarios.StoreWindow {
		return 0
	}
	return ts
}

// partition is the offsets-CF key of store id's changelog partition
// (goengine.Hooks.Partition): partition <task> of app-store-<idx>-changelog,
// one per store.
func partition(id goengine.StoreID) string {
	return lifecycle.ChangelogKey(fmt.Sprintf("app-store-%d-changelog", id.Store), id.Task)
}

// hooks are an instance's topology's hooks: the fleet's records, one
// changelog partition per store, and written called with each record
// written.
func (rs records) hooks(written func(goengine.StoreID, changelog.Record)) goengine.Hooks {
	return goengine.Hooks{Record: rs.record, Value: rs.value, Partition: partition, Written: written}
}

// outputHash folds one output (store idx of a task returned value for key
// at ts; ts is 0 in a kv store, which keeps one version per key) into h. A
// nil value (the store did not return the record) hashes apart from every
// value.
func outputHash(h uint64, idx int, key string, ts int64, value []byte) uint64 {
	f := fnv.New64a()
	var b [24]byte
	binary.LittleEndian.PutUint64(b[:8], h)
	binary.LittleEndian.PutUint64(b[8:16], uint64(idx))
	binary.LittleEndian.PutUint64(b[16:24], uint64(ts))
	f.Write(b[:])
	f.Write([]byte(key))
	if value == nil {
		f.Write([]byte{0xff, 0xfe})
	} else {
		f.Write([]byte{0})
		f.Write(value)
	}
	return f.Sum64()
}

// Reference is the parent's in-memory replay of the fleet's tasks: the
// outputs every task must produce, computed from the input alone.
type Reference struct {
	records
	tasks []*refTask
}

type refTask struct {
	pos int64 // steps replayed
}

// NewReference starts the replay of sc's tasks at step 0 with the fleet's seed.
func NewReference(sc scenarios.Scenario, seed int64) *Reference {
	r := &Reference{records: records{sc: sc, seed: uint64(seed)}}
	for range sc.Tasks {
		r.tasks = append(r.tasks, &refTask{})
	}
	return r
}

// Outputs returns the hash of task's outputs over steps [from, to) and how
// many records they are. Calls for one task must come in order with no gap
// (from equal to the previous call's to; the first from 0).
func (r *Reference) Outputs(task int, from, to int64) (uint64, int64, error) {
	if task < 0 || task >= len(r.tasks) {
		return 0, 0, fmt.Errorf("reference: no task %d", task)
	}
	rt := r.tasks[task]
	if from != rt.pos || to < from {
		return 0, 0, fmt.Errorf("reference: task %d asked for steps [%d, %d) at step %d", task, from, to, rt.pos)
	}
	var h uint64
	var n int64
	for ; rt.pos < to; rt.pos++ {
		prev := rt.pos * r.sc.StepMs
		for idx := range r.sc.StoresPerTask {
			id := goengine.StoreID{Task: task, Store: idx}
			for i := range r.sc.RecordsPerStep {
				ts := prev + int64(i+1)*r.sc.StepMs/int64(r.sc.RecordsPerStep)
				key, ver := r.record(id, prev, ts, i, r.sc.RecordsPerStep)
				h = outputHash(h, idx, key, r.hashTs(ts), r.value(id, changelog.Record{Key: key, Ts: ts, Ver: ver}))
				n++
			}
		}
	}
	return h, n, nil
}
