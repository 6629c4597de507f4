package goengine

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/workload"
)

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
		if err := s.store.close(); err != nil {
			// Kafka logs a failed close and goes on; a storage fault in it
			// still marks the run.
			t.storageFaults.Add(err.Error())
			if len(schema.StorageFaults(err.Error())) > 0 {
				t.tellTaskError(fmt.Sprintf("task %d %s: close: %s", s.task, t.storeName(s), schema.CollapseError(err.Error())), err.Error())
			}
		}
		s.store = nil
	}
}
