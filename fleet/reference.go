package fleet

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/workload"
)

// A fleet's outputs: for every input record a task processes, the value its
// store returns when the record is read back right after the update. An
// instance hashes them per task (outputHash, in processing order); the
// parent computes the same hashes in memory from the input alone (Reference),
// without RocksDB, and the rehearsal compares the two.

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
	sc    scenarios.Scenario
	seed  uint64
	tasks []*refTask
}

type refTask struct {
	pos int64 // steps replayed
}

// NewReference starts the replay of sc's tasks at step 0 with the fleet's seed.
func NewReference(sc scenarios.Scenario, seed int64) *Reference {
	r := &Reference{sc: sc, seed: uint64(seed)}
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
			for i := range r.sc.RecordsPerStep {
				ts := prev + int64(i+1)*r.sc.StepMs/int64(r.sc.RecordsPerStep)
				key := workload.Key(int(harness.RecordKeyHash(r.seed, task, idx, ts) % uint64(r.sc.KeySpread)))
				var hts int64 // a kv store keeps one version per key
				if r.sc.Store == scenarios.StoreWindow {
					hts = ts
				}
				ver := harness.FleetVersion(rt.pos, r.sc.RecordsPerStep, i)
				h = outputHash(h, idx, key, hts, workload.RecordValue(r.seed, r.sc.ValueBytes, task, idx, key, ts, ver))
				n++
			}
		}
	}
	return h, n, nil
}
