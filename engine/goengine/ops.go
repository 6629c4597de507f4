package goengine

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/workload"
)

// runSchedule executes the scenario's schedule (package workload's op
// stream, read from ops) on the topology: the Go engine's executor of the
// workload the JVM child executes too. Every failure is the schedule's (the
// topology's own draws are off: see lifecycle.NewScheduledInjector); the
// topology reacts to what its stores do (restores, wipes, task errors) as it
// always has. It stops before a step op when stop says so, at the end of the
// stream or an end op, when ctx is cancelled, or when halted says the
// recorder failed.
func (t *Topology) runSchedule(ctx context.Context, ops *workload.Reader, stop, halted func() bool) error {
	t.faults = lifecycle.NewScheduledInjector()
	t.env.Faults = t.faults
	for _, tk := range t.tasks {
		for _, s := range tk.stores {
			if err := t.openLog(s); err != nil {
				return err
			}
		}
	}
	for ctx.Err() == nil && t.logErr == nil && !halted() {
		op, err := ops.Next()
		if errors.Is(err, io.EOF) || op.Kind == workload.KindEnd {
			return nil
		}
		if err != nil {
			return fmt.Errorf("child: the op stream: %w", err)
		}
		if op.Kind == workload.KindStep && stop() {
			return nil
		}
		if err := t.apply(op); err != nil {
			return fmt.Errorf("child: %s op: %w", op.Kind, err)
		}
	}
	return nil
}

// slotOf is the store an op names.
func (t *Topology) slotOf(op workload.Op) (*slot, error) {
	if op.Task < 0 || op.Task >= len(t.tasks) || op.Store < 0 || op.Store >= len(t.tasks[op.Task].stores) {
		return nil, fmt.Errorf("no store %d of task %d in the scenario", op.Store, op.Task)
	}
	return t.tasks[op.Task].stores[op.Store], nil
}

// apply executes one op (see package workload for what each means).
func (t *Topology) apply(op workload.Op) error {
	switch op.Kind {
	case workload.KindStep:
		t.steps++
		t.streamTime = op.StreamTime
	case workload.KindSeedOld:
		s, err := t.slotOf(op)
		if err != nil {
			return err
		}
		return t.seedOldFormat(s)
	case workload.KindOpen:
		s, err := t.slotOf(op)
		if err != nil {
			return err
		}
		t.streamTime = op.StreamTime
		t.faults.FailNextInits(op.InitFailures)
		t.open(s)
		t.faults.FailNextInits(0)
	case workload.KindPut:
		s, err := t.slotOf(op)
		if err != nil {
			return err
		}
		t.put(s, changelog.Record{Key: op.Key, Ts: op.Ts, Ver: op.Ver}, op.InitFailures)
	case workload.KindGet, workload.KindRange:
		s, err := t.slotOf(op)
		if err != nil {
			return err
		}
		t.read(s, op)
	case workload.KindCommit:
		if op.Task < 0 || op.Task >= len(t.tasks) {
			return fmt.Errorf("no task %d in the scenario", op.Task)
		}
		for _, s := range t.tasks[op.Task].stores {
			t.commit(s)
			if s.store != nil {
				s.store.committed()
			}
			t.flushLog(s)
		}
	case workload.KindArm:
		s, err := t.slotOf(op)
		if err != nil {
			return err
		}
		f, err := lifecycle.ParseFault(string(op.Fault))
		if err != nil {
			return err
		}
		if s.store != nil {
			s.store.armCloseFault(f)
		}
	case workload.KindClose:
		s, err := t.slotOf(op)
		if err != nil {
			return err
		}
		t.closeSlot(s)
	case workload.KindRebalance:
		t.rebalances++
	case workload.KindSamplePoint:
		t.after()
	default:
		return fmt.Errorf("unknown op %q", op.Kind)
	}
	return nil
}

// put writes one record into s (skipped while s is not open) and reports
// whether the store accepted it; initFailures is for the open of the window
// segment it creates (a schedule's; 0 leaves the injector's draws). A record
// the store accepted goes to its changelog.
func (t *Topology) put(s *slot, r changelog.Record, initFailures int) bool {
	if s.store == nil {
		return false // the store could not be opened; its task error is counted
	}
	t.faults.FailNextInits(initFailures)
	err := s.store.put(r, t.value(s, r))
	t.faults.FailNextInits(0)
	if err != nil {
		t.writeFailed++ // Kafka reprocesses it: not lost
		t.taskError(s, err)
		return false
	}
	if _, err := s.clog.Append(r); err != nil {
		t.logFailed(err)
	}
	s.offset++
	t.records++
	return true
}

// read executes a get or range op on s (skipped while s is not open): a read
// error is a task error, as a store's read failing is in a Kafka task.
func (t *Topology) read(s *slot, op workload.Op) {
	if s.store == nil {
		return
	}
	var err error
	if op.Kind == workload.KindGet {
		_, err = s.store.read(changelog.Record{Key: op.Key, Ts: op.Ts})
	} else {
		_, err = s.store.scan()
	}
	if err != nil {
		t.taskError(s, fmt.Errorf("%s: %w", op.Kind, err))
	}
}
