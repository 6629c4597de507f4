package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/schema"
)

// plannedPhase is one phase of the plan: the instances restarted at its
// start (on To) and whether it is gated.
type plannedPhase struct {
	name    string
	restart []int
	gated   bool
}

// plan lays out the phases: baseline; canary (the first instance of domain
// 0); per domain, its remaining instances in waves of at most maxRestarts;
// final.
func plan(a *Assignment, maxRestarts int) []plannedPhase {
	ps := []plannedPhase{{name: "baseline"}}
	canary := a.InDomain(0)[0]
	ps = append(ps, plannedPhase{name: "canary", restart: []int{canary}, gated: true})
	for d := range a.Domains() {
		rest := slices.DeleteFunc(a.InDomain(d), func(i int) bool { return i == canary })
		waves := (len(rest) + maxRestarts - 1) / maxRestarts
		for w := range waves {
			name := fmt.Sprintf("expand-domain-%d", d)
			if waves > 1 {
				name = fmt.Sprintf("expand-domain-%d-wave-%d", d, w+1)
			}
			ps = append(ps, plannedPhase{name: name, restart: rest[w*maxRestarts : min((w+1)*maxRestarts, len(rest))], gated: true})
		}
	}
	return append(ps, plannedPhase{name: "final"})
}

// fleetRuntime is a running rehearsal.
type fleetRuntime struct {
	cfg       RehearsalConfig
	exe       string
	childArgs []string
	childEnv  []string
	stderr    io.Writer
	killAfter time.Duration

	root   string // the fleet root: instance-<i>/ state directories and changelog/
	assign *Assignment
	procs  []*instProc
	models []string
	incarn []int
	ready  []*InstanceReady
	pos    map[int]int64 // committed input position (steps) per task
	tick   int64
	budget int

	downUntil []int64   // an instance processes nothing until this tick
	perTickNs []float64 // each instance's wall time per tick of input, from its last phase
	busyNs    []int64   // this phase's processing wall time per instance
	steps     []int64   // this phase's task-steps per instance
	lag       [][]schema.LagPoint

	restartNs map[int]int64            // the current phase's restarts: wall time per instance
	stopped   map[int]*InstanceStopped // each instance's report at its last stop

	ref        *Reference
	mismatches map[int][]string // per instance: output mismatches, in words
	rec        *schema.Rehearsal
}

func (f *fleetRuntime) logf(format string, args ...any) {
	if f.cfg.Log != nil {
		fmt.Fprintf(f.cfg.Log, "rehearse: "+format+"\n", args...)
	}
}

// Rehearse runs an upgrade rehearsal and returns its record, whose Status
// says how it ended (complete, rolled-back, rollback-failed, interrupted or
// failed). The error is non-nil only when nothing ran (an invalid
// configuration wraps ErrRehearsalConfig). Every child is stopped and the
// fleet's state and changelogs are removed before it returns.
func Rehearse(ctx context.Context, cfg RehearsalConfig) (*schema.Rehearsal, error) {
	if cfg.Utilization == 0 {
		cfg.Utilization = DefaultUtilization
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := harness.Preflight(cfg.Scenario); err != nil {
		return nil, err
	}
	a, err := NewAssignment(cfg.Instances, cfg.Scenario.Tasks, cfg.Domains)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRehearsalConfig, err)
	}
	f := &fleetRuntime{cfg: cfg, exe: cfg.Exe, childArgs: cfg.ChildArgs, childEnv: cfg.ChildEnv, stderr: cfg.Stderr,
		killAfter: cfg.KillAfter, assign: a, pos: map[int]int64{}, mismatches: map[int][]string{},
		restartNs: map[int]int64{}, stopped: map[int]*InstanceStopped{},
		budget: int(math.Ceil(1 / cfg.Utilization))}
	if f.exe == "" {
		if f.exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if f.childArgs == nil {
		f.childArgs = []string{InstanceArg}
	}
	if f.stderr == nil {
		f.stderr = io.Discard
	}
	if f.killAfter == 0 {
		f.killAfter = 20 * time.Second
	}
	stateRoot := cfg.StateRoot
	if stateRoot == "" {
		stateRoot = harness.DefaultStateRoot()
	}
	if f.root, err = os.MkdirTemp(stateRoot, "rocksleak-rehearsal-"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(f.root)
	n := cfg.Instances
	f.procs, f.models, f.incarn, f.ready = make([]*instProc, n), make([]string, n), make([]int, n), make([]*InstanceReady, n)
	f.downUntil, f.perTickNs, f.busyNs, f.steps = make([]int64, n), make([]float64, n), make([]int64, n), make([]int64, n)
	f.lag = make([][]schema.LagPoint, n)
	f.ref = NewReference(cfg.Scenario, cfg.Seed)
	sc := cfg.Scenario
	f.rec = &schema.Rehearsal{
		SchemaVersion: schema.RehearsalSchemaVersion, Tool: "rocksleak", From: cfg.From, To: cfg.To,
		Scenario: sc.Name, Seed: cfg.Seed, MaxRestarts: cfg.MaxRestarts, WindowMs: cfg.WindowMs,
		RecordsPerSecond: float64(sc.RecordsPerStep*sc.StoresPerTask) * 1000 / float64(sc.StepMs),
		Utilization:      cfg.Utilization, StepMs: sc.StepMs, Policy: cfg.Policy,
	}
	for i := range n {
		f.rec.Instances = append(f.rec.Instances, schema.FleetInstance{ID: i, Domain: a.Domain(i), Tasks: a.Tasks(i)})
	}
	begin := time.Now()
	f.run(ctx)
	f.shutdown()
	f.rec.ElapsedNs = int64(time.Since(begin))
	return f.rec, nil
}

// run drives the phases and sets the record's status and decision.
func (f *fleetRuntime) run(ctx context.Context) {
	phases := plan(f.assign, f.cfg.MaxRestarts)
	fail := func(err error) {
		f.rec.Errors = append(f.rec.Errors, err.Error())
		if ctx.Err() != nil {
			f.rec.Status = schema.RehearsalInterrupted
			f.rec.Decision = "interrupted: the rehearsal stopped before its end; the record holds what ran"
			return
		}
		f.rec.Status = schema.RehearsalFailed
		f.rec.Decision = "failed: " + err.Error()
	}
	for pi, pp := range phases {
		var err error
		if pi == 0 {
			err = f.startAll(ctx)
		} else {
			err = f.restartAll(ctx, pp.name, pp.restart, f.cfg.To)
		}
		if err == nil {
			err = f.runPhase(ctx, pp.name, pp.restart)
		}
		if err != nil {
			fail(err)
			return
		}
		if !pp.gated {
			continue
		}
		cands, bases := f.gateSides(pp.restart)
		phase := len(f.rec.Phases) - 1
		g, gerr := f.cfg.Gate(f.rec, phase, cands, bases)
		if gerr != nil {
			f.rec.Errors = append(f.rec.Errors, fmt.Sprintf("gate of %s: %v", pp.name, gerr))
			g = &schema.GateRecord{Phase: pp.name, Candidates: cands, Baselines: bases, Outcome: "fail",
				Reason: "the gate could not be evaluated: " + gerr.Error()}
		}
		f.rec.Phases[phase].Gate = g
		f.logf("gate %s: %s (%s)", pp.name, g.Outcome, g.Reason)
		if g.Outcome == "fail" {
			f.rollback(ctx, pp.name, g)
			return
		}
	}
	var mism []string
	for i := range f.cfg.Instances {
		for _, m := range f.mismatches[i] {
			mism = append(mism, fmt.Sprintf("instance %d: %s", i, m))
		}
	}
	if len(mism) > 0 {
		// The stores returned other values than the input makes: whatever
		// the gates said, the rollout is not safe.
		f.rec.Errors = append(f.rec.Errors, mism...)
		f.rec.Status = schema.RehearsalFailed
		f.rec.Decision = fmt.Sprintf("failed: every gate passed but %d task outputs differ from the reference replay", len(mism))
		return
	}
	f.rec.Status = schema.RehearsalComplete
	f.rec.Decision = fmt.Sprintf("complete: every gate passed; all %d instances run %s; every task's outputs equal the reference replay",
		f.cfg.Instances, f.cfg.To)
}

// gateSides: the candidates are the instances restarted in the phase; the
// baselines the instances still on From in it, or, when none is left (the
// last expansion), the instances upgraded (and gated) before it.
func (f *fleetRuntime) gateSides(restarted []int) (cands, bases []int) {
	cands = slices.Clone(restarted)
	var earlier []int
	for i, m := range f.models {
		switch {
		case slices.Contains(restarted, i):
		case m == f.cfg.From:
			bases = append(bases, i)
		default:
			earlier = append(earlier, i)
		}
	}
	if len(bases) == 0 {
		bases = earlier
	}
	return cands, bases
}

// runPhase runs one window of ticks, then collects every instance's phase.
func (f *fleetRuntime) runPhase(ctx context.Context, name string, restarted []int) error {
	begin := time.Now()
	sc := f.cfg.Scenario
	ticks := f.cfg.WindowMs / sc.StepMs
	start := f.tick
	for i := range f.procs {
		f.busyNs[i], f.steps[i], f.lag[i] = 0, 0, nil
		if !slices.Contains(restarted, i) && f.procs[i] != nil {
			f.procs[i].takeSamples() // a phase's samples start at its start
		}
	}
	f.logf("%s: %d ticks of %d ms (simulated %s)", name, ticks, sc.StepMs, time.Duration(ticks*sc.StepMs)*time.Millisecond)
	var err error
	for range ticks {
		if ctx.Err() != nil {
			err = ctx.Err()
			break
		}
		if err = f.tickAll(); err != nil {
			break
		}
	}
	ph := schema.Phase{Name: name, StartMs: start * sc.StepMs, EndMs: f.tick * sc.StepMs, Restarted: slices.Clone(restarted)}
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for i, p := range f.procs {
		if p == nil {
			continue
		}
		ip := schema.InstancePhase{Instance: i, Model: f.models[i], Lag: f.lag[i]}
		if slices.Contains(restarted, i) {
			ip.RestartNs = f.restartNs[i]
			ip.StallMs = (f.downUntil[i] - start) * sc.StepMs
		}
		for _, l := range f.lag[i] {
			ip.MaxLagMs, ip.MaxLagRecords = max(ip.MaxLagMs, l.BehindMs), max(ip.MaxLagRecords, l.Records)
		}
		if err == nil || ctx.Err() != nil {
			// Interrupted between ticks, the children are well: the partial
			// phase is reported too.
			if perr := p.send(InstanceCommand{PhaseEnd: true}); perr != nil {
				errs = append(errs, perr)
			} else if e, perr := p.await(func(e Event) bool { return e.PhaseEnd != nil }); perr != nil {
				errs = append(errs, perr)
			} else {
				ip.Summary = e.PhaseEnd.Summary
				f.checkOutputs(i, name, e.PhaseEnd.Outputs)
			}
		}
		ip.Samples = p.takeSamples()
		if f.steps[i] > 0 {
			f.perTickNs[i] = float64(f.busyNs[i]) / (float64(f.steps[i]) / float64(len(f.assign.Tasks(i))))
		}
		ph.Instances = append(ph.Instances, ip)
	}
	ph.ElapsedNs = int64(time.Since(begin))
	if len(restarted) > 0 {
		ph.ElapsedNs += sumRestart(f.restartNs)
	}
	f.rec.Phases = append(f.rec.Phases, ph)
	return errors.Join(errs...)
}

func sumRestart(m map[int]int64) int64 {
	var s int64
	for _, v := range m {
		s += v
	}
	return s
}

// tickAll advances simulated time by one step: the input of every task grows
// by a step; every instance that is not stalled processes its backlog, up to
// the budget, all instances at once; then each one's lag is recorded.
func (f *fleetRuntime) tickAll() error {
	f.tick++
	var sent []*instProc
	var errs []error
	for i, p := range f.procs {
		if p == nil || f.tick <= f.downUntil[i] {
			continue
		}
		if err := p.send(InstanceCommand{Tick: &TickCommand{Until: f.tick, Budget: f.budget}}); err != nil {
			errs = append(errs, err)
			continue
		}
		sent = append(sent, p)
	}
	for _, p := range sent {
		e, err := p.await(func(e Event) bool { return e.Tick != nil })
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for k, v := range e.Tick.Positions {
			f.pos[k] = v
		}
		f.busyNs[p.id] += e.Tick.BusyNs
		f.steps[p.id] += e.Tick.Steps
	}
	sc := f.cfg.Scenario
	for i := range f.procs {
		var recs, behind int64
		for _, k := range f.assign.Tasks(i) {
			d := f.tick - f.pos[k]
			recs += d * int64(sc.RecordsPerStep*sc.StoresPerTask)
			behind = max(behind, d*sc.StepMs)
		}
		f.lag[i] = append(f.lag[i], schema.LagPoint{AtMs: f.tick * sc.StepMs, Records: recs, BehindMs: behind})
	}
	return errors.Join(errs...)
}

// checkOutputs compares an instance's outputs over the phase with the
// reference replay.
func (f *fleetRuntime) checkOutputs(i int, phase string, outs []TaskOutput) {
	for _, o := range outs {
		h, n, err := f.ref.Outputs(o.Task, o.From, o.To)
		switch {
		case err != nil:
			f.mismatches[i] = append(f.mismatches[i], fmt.Sprintf("%s: task %d: %v", phase, o.Task, err))
		case h != o.Hash || n != o.Records:
			f.mismatches[i] = append(f.mismatches[i], fmt.Sprintf("%s: task %d steps [%d, %d): %d records hash %016x, reference %d records hash %016x",
				phase, o.Task, o.From, o.To, o.Records, o.Hash, n, h))
		}
	}
}

// shutdown stops every running instance as at the end of a rollout (their
// stores closed as their models close them).
func (f *fleetRuntime) shutdown() {
	for i, p := range f.procs {
		if p == nil {
			continue
		}
		if p.waited {
			continue
		}
		if err := p.stop(f.killAfter); err != nil && f.rec.Status != schema.RehearsalInterrupted {
			f.rec.Errors = append(f.rec.Errors, fmt.Sprintf("stopping instance %d: %v", i, err))
		}
		f.procs[i] = nil
	}
}
