package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/schema"
)

// rollback stops the rollout after a failed gate: every instance on To is
// restarted on From over its own state (all at once: this is the way back),
// the fleet runs one more window, and the rollback is verified.
func (f *fleetRuntime) rollback(ctx context.Context, failed string, g *schema.GateRecord) {
	var upgraded []int
	for i, m := range f.models {
		if m == f.cfg.To && f.procs[i] != nil {
			upgraded = append(upgraded, i)
		}
	}
	f.logf("gate %s failed: stopping the rollout and rolling instances %v back to %s", failed, upgraded, f.cfg.From)
	err := f.restartAll(ctx, "rollback", upgraded, f.cfg.From)
	if err == nil {
		err = f.runPhase(ctx, "rollback", upgraded)
	}
	rb := &schema.Rollback{Instances: upgraded}
	f.rec.Rollback = rb
	if err != nil {
		f.rec.Errors = append(f.rec.Errors, err.Error())
		if ctx.Err() != nil {
			f.rec.Status = schema.RehearsalInterrupted
			f.rec.Decision = "interrupted during the rollback"
			return
		}
		rb.Checks = append(rb.Checks, schema.RollbackCheck{Name: "rollback ran", OK: false, Detail: err.Error()})
	} else {
		rb.Checks = f.verifyRollback(upgraded)
	}
	rb.Verified = len(rb.Checks) > 0
	var bad []string
	for _, c := range rb.Checks {
		if !c.OK {
			rb.Verified = false
			bad = append(bad, c.Name)
		}
	}
	if rb.Verified {
		f.rec.Status = schema.RehearsalRolledBack
		f.rec.Decision = fmt.Sprintf("rolled back: the %s gate failed (%s); instances %v are back on %s and the rollback verified",
			failed, g.Reason, upgraded, f.cfg.From)
		return
	}
	f.rec.Status = schema.RehearsalRollbackFailed
	f.rec.Decision = fmt.Sprintf("rollback failed: the %s gate failed (%s) and the rollback did not verify: %s",
		failed, g.Reason, strings.Join(bad, "; "))
}

// verifyRollback checks what the rollback must preserve, for the rolled-back
// instances: the old version opened the new version's state, the changelog
// offsets are those the new version committed, no record was lost, the
// outputs equal the reference replay, and the version mapping is back. It
// returns the five checks in that order.
func (f *fleetRuntime) verifyRollback(ids []int) []schema.RollbackCheck {
	return []schema.RollbackCheck{
		f.checkStateOpens(ids),
		f.checkOffsetsPreserved(ids),
		f.checkNoRecordLost(ids),
		f.checkRolledBackOutputs(ids),
		f.checkVersionMapping(),
	}
}

// rollbackCheck is one named check with its detail formatted.
func rollbackCheck(name string, ok bool, format string, args ...any) schema.RollbackCheck {
	return schema.RollbackCheck{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)}
}

// checkStateOpens: the old version opens what the new one wrote (status
// marker, offsets CF, data): every store of the instances ids reopened; one
// whose last close failed (its status marker says unclean) is rebuilt from
// the changelog, as Kafka does under exactly-once.
func (f *fleetRuntime) checkStateOpens(ids []int) schema.RollbackCheck {
	var reopened, caughtUp, restored, fresh, taskErrs int
	var errs []string
	for _, i := range ids {
		r := f.ready[i]
		taskErrs += int(r.TaskErrors)
		for _, s := range r.Stores {
			switch s.How {
			case goengine.StoreReopened:
				reopened++
			case goengine.StoreCaughtUp:
				caughtUp++
			case goengine.StoreRestored:
				restored++
			default:
				fresh++
			}
			if s.Error != "" {
				errs = append(errs, s.Error)
			}
		}
	}
	return rollbackCheck("old version opens the new version's state", taskErrs == 0 && fresh == 0 && len(errs) == 0 && reopened+caughtUp > 0,
		"%s stores: %d reopened, %d caught up from the changelog, %d rebuilt from the changelog after an unclean close, %d found no state; %d task errors%s",
		f.cfg.From, reopened, caughtUp, restored, fresh, taskErrs, firstOf(errs))
}

// checkOffsetsPreserved: changelog offsets preserved: each store the old
// version reopened holds the offset the new version committed at its stop,
// which is the changelog's end; every changelog file holds what the offsets
// say.
func (f *fleetRuntime) checkOffsetsPreserved(ids []int) schema.RollbackCheck {
	var checked, files int
	var diffs []string
	for _, i := range ids {
		before := map[[2]int]goengine.StoreOpen{}
		if st := f.stopped[i]; st != nil {
			for _, s := range st.Stores {
				before[[2]int{s.Task, s.Store}] = s
			}
		}
		for _, s := range f.ready[i].Stores {
			b, ok := before[[2]int{s.Task, s.Store}]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("task %d store %d: no offsets from the stop", s.Task, s.Store))
				continue
			}
			if s.ChangelogEnd != b.ChangelogEnd {
				diffs = append(diffs, fmt.Sprintf("task %d store %d: changelog end %d at the stop, %d at the reopen",
					s.Task, s.Store, b.ChangelogEnd, s.ChangelogEnd))
				continue
			}
			// Now, after the rollback window: the file holds one record per
			// input record the task has committed (its position).
			recs, err := changelog.ReadAll(changelog.Path(f.root, s.Task, s.Store))
			if want := f.pos[s.Task] * int64(f.cfg.Scenario.RecordsPerStep); err != nil || int64(len(recs)) != want {
				diffs = append(diffs, fmt.Sprintf("task %d store %d: %d records in the changelog file, the committed input position says %d (%v)",
					s.Task, s.Store, len(recs), want, err))
			}
			files++
			if s.How != goengine.StoreReopened {
				continue // rebuilt or caught up: its offset is the changelog's end once it commits
			}
			checked++
			if !s.HasCommitted || !b.HasCommitted || s.Committed != b.Committed || s.Committed != b.ChangelogEnd {
				diffs = append(diffs, fmt.Sprintf("task %d store %d: committed %d (present %t) at the stop, %d (present %t) at the reopen, changelog end %d",
					s.Task, s.Store, b.Committed, b.HasCommitted, s.Committed, s.HasCommitted, b.ChangelogEnd))
			}
		}
	}
	return rollbackCheck("changelog offsets preserved", len(diffs) == 0 && files > 0,
		"%d reopened stores hold the offset the new version committed at its stop (the changelog's end then); %d changelog files hold one record per committed input record%s",
		checked, files, firstOf(diffs))
}

// checkNoRecordLost: no record lost: what the reopened and rebuilt stores
// hold against the changelog (the topology's verify), and over the rollback
// window (the last phase recorded).
func (f *fleetRuntime) checkNoRecordLost(ids []int) schema.RollbackCheck {
	var lost, verified int64
	for _, i := range ids {
		lost += f.ready[i].Lost
	}
	last := f.rec.Phases[len(f.rec.Phases)-1]
	for _, ip := range last.Instances {
		if slices.Contains(ids, ip.Instance) {
			lost += ip.Summary.RecordsLost
			verified += ip.Summary.Verified
		}
	}
	var everLost int64
	for _, ph := range f.rec.Phases {
		for _, ip := range ph.Instances {
			everLost += ip.Summary.RecordsLost
		}
	}
	return rollbackCheck("no record lost", lost == 0 && everLost == 0,
		"%d records lost at the reopen and in the rollback window (%d verified there); %d lost over the whole rehearsal", lost, verified, everLost)
}

// checkRolledBackOutputs: every task's outputs, in every phase, equal the
// parent's replay of the input; in the rollback window for the rolled-back
// instances in particular.
func (f *fleetRuntime) checkRolledBackOutputs(ids []int) schema.RollbackCheck {
	var mism []string
	var tasks int
	for _, i := range ids {
		mism = append(mism, f.mismatches[i]...)
		tasks += len(f.assign.Tasks(i))
	}
	return rollbackCheck("outputs equal the reference replay", len(mism) == 0,
		"the outputs of the %d tasks of the rolled-back instances (each record's value as read back after its update, hashed per task and phase) equal the parent's in-memory replay in every phase%s",
		tasks, firstOf(mism))
}

// checkVersionMapping: every instance back on From, every task with its owner.
func (f *fleetRuntime) checkVersionMapping() schema.RollbackCheck {
	var wrong []string
	for i, m := range f.models {
		if m != f.cfg.From {
			wrong = append(wrong, fmt.Sprintf("instance %d on %s", i, m))
		}
	}
	for _, fi := range f.rec.Instances {
		if got := f.assign.Tasks(fi.ID); !slices.Equal(got, fi.Tasks) {
			wrong = append(wrong, fmt.Sprintf("instance %d owns tasks %v, had %v", fi.ID, got, fi.Tasks))
		}
	}
	return rollbackCheck("version mapping restored", len(wrong) == 0,
		"all %d instances run %s and own the tasks they started with%s", len(f.models), f.cfg.From, firstOf(wrong))
}

func firstOf(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return "; " + s[0]
	}
	return fmt.Sprintf("; %s (and %d more)", s[0], len(s)-1)
}
