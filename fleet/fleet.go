package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// DefaultUtilization is the share of an instance's processing capacity its
// input uses (see schema.Rehearsal.Utilization).
const DefaultUtilization = 0.1

// ErrRehearsalConfig marks a rehearsal configuration that cannot run; the
// message names the field (the CLI's flag).
var ErrRehearsalConfig = errors.New("invalid rehearsal")

// GateFunc evaluates the gate on phase of r: each candidate instance against
// the baseline instances over that phase's window (rehearsal.Gate
// with a policy).
type GateFunc func(r *schema.Rehearsal, phase int, candidates, baselines []int) (*schema.GateRecord, error)

// RehearsalConfig is an upgrade rehearsal: a fleet of Instances, each a child
// process with its own state directory, rolled from model From to model To.
type RehearsalConfig struct {
	Scenario    scenarios.Scenario
	From, To    string
	Instances   int
	Domains     int
	MaxRestarts int
	// WindowMs is each phase's length in simulated time.
	WindowMs int64
	Seed     int64
	// Utilization: see schema.Rehearsal.Utilization; 0 is DefaultUtilization.
	Utilization float64
	// Policy is the gate policy's YAML text, recorded as used.
	Policy string
	Gate   GateFunc
	// As in harness.Config: how children start (ChildArgs defaults to
	// InstanceArg), where state goes, their stderr.
	Exe       string
	ChildArgs []string
	ChildEnv  []string
	StateRoot string
	Stderr    io.Writer
	KillAfter time.Duration
	// Log receives one line per step of the rehearsal (progress); may be nil.
	Log io.Writer
}

// Validate reports the first field that cannot run, naming its flag.
func (c RehearsalConfig) Validate() error {
	bad := func(flag, format string, args ...any) error {
		return fmt.Errorf("%w: --%s: %s", ErrRehearsalConfig, flag, fmt.Sprintf(format, args...))
	}
	if err := c.ValidateModels(); err != nil {
		return err
	}
	switch {
	case c.Instances < 1:
		return bad("instances", "%d: need at least 1", c.Instances)
	case c.Instances > c.Scenario.Tasks:
		return bad("instances", "%d instances for the scenario's %d tasks: every instance needs a task (raise tasks with --set tasks=N)",
			c.Instances, c.Scenario.Tasks)
	case c.Domains < 1 || c.Domains > c.Instances:
		return bad("domains", "%d: need 1 to %d (the number of instances)", c.Domains, c.Instances)
	case c.MaxRestarts < 1:
		return bad("max-restarts", "%d: need at least 1", c.MaxRestarts)
	case c.WindowMs < c.Scenario.StepMs:
		return bad("window", "%d ms is shorter than one step of the scenario (%d ms)", c.WindowMs, c.Scenario.StepMs)
	case c.Utilization < 0 || c.Utilization > 1:
		return bad("utilization", "%v: need a share in (0, 1]", c.Utilization)
	case c.Scenario.Store == scenarios.StoreMigrating:
		return bad("scenario", "a fleet does not run the migrating store")
	case c.Gate == nil:
		return fmt.Errorf("%w: no gate", ErrRehearsalConfig)
	}
	return nil
}

// ValidateModels checks From and To alone.
func (c RehearsalConfig) ValidateModels() error {
	for _, f := range []struct{ flag, model string }{{"from", c.From}, {"to", c.To}} {
		if f.model == "" {
			return fmt.Errorf("%w: --%s: missing: name a model (one of %s)", ErrRehearsalConfig, f.flag,
				strings.Join(scenarios.ModelNames(), ", "))
		}
		rn, err := spec.ParseRunName(f.model, scenarios.ModelNames())
		if err != nil {
			return fmt.Errorf("%w: --%s: %w", ErrRehearsalConfig, f.flag, err)
		}
		if rn.JVM() {
			return fmt.Errorf("%w: --%s: %q: a rehearsal runs the Go engine's models only (one of %s); the JVM engine runs kafka-<version> models with rocksleak run",
				ErrRehearsalConfig, f.flag, f.model, strings.Join(scenarios.ModelNames(), ", "))
		}
	}
	if c.From == c.To {
		return fmt.Errorf("%w: --to: %q is --from too: nothing to upgrade", ErrRehearsalConfig, c.To)
	}
	return nil
}

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

func (f *fleetRuntime) instanceDir(i int) string { return fmt.Sprintf("%s/instance-%d", f.root, i) }

// launch starts instance i on model (its tasks at their committed positions)
// and waits until its stores are open.
func (f *fleetRuntime) launch(i int, model string) (*instProc, error) {
	positions := map[int]int64{}
	for _, k := range f.assign.Tasks(i) {
		positions[k] = f.pos[k]
	}
	f.incarn[i]++
	rn, err := spec.ParseRunName(model, scenarios.ModelNames())
	if err != nil {
		return nil, err
	}
	job := Job{Job: harness.Job{Scenario: f.cfg.Scenario, Model: model, RunName: rn,
		Seed: f.cfg.Seed + 7919*int64(i+1) + 104729*int64(f.incarn[i]), StateDir: f.instanceDir(i)},
		Instance: &InstanceJob{ID: i, Tasks: f.assign.Tasks(i), Positions: positions, FleetRoot: f.root, FleetSeed: f.cfg.Seed}}
	var env []string
	if rn.Allocator == spec.AllocatorJemalloc {
		lib, err := harness.JemallocPath()
		if err != nil {
			return nil, err
		}
		env = []string{"LD_PRELOAD=" + lib}
	}
	return startInstance(f, job, env)
}

func (f *fleetRuntime) awaitReady(p *instProc) error {
	e, err := p.await(func(e Event) bool { return e.Ready != nil })
	if err != nil {
		return err
	}
	f.procs[p.id], f.models[p.id], f.ready[p.id] = p, p.model, e.Ready
	return nil
}

// startAll starts every instance on From, concurrently.
func (f *fleetRuntime) startAll(ctx context.Context) error {
	var started []*instProc
	for i := range f.cfg.Instances {
		p, err := f.launch(i, f.cfg.From)
		if err != nil {
			for _, q := range started {
				q.kill(f.killAfter)
			}
			return err
		}
		started = append(started, p)
		f.rec.Versions = append(f.rec.Versions, schema.VersionChange{AtMs: 0, Instance: i, To: f.cfg.From, Phase: "baseline"})
	}
	var errs []error
	for _, p := range started {
		if err := f.awaitReady(p); err != nil {
			errs = append(errs, err)
			f.procs[p.id] = p // so that shutdown stops it
		}
	}
	f.logf("fleet of %d instances on %s started (%d failure domains, %d tasks)", f.cfg.Instances, f.cfg.From,
		f.cfg.Domains, f.cfg.Scenario.Tasks)
	return errors.Join(errs...)
}

// restartAll restarts the instances, one after another, on model at the
// phase's start: each stops (closing its stores as its model closes them),
// then a new process on model reopens its state. The wall time from the
// stop to the new process's Ready stalls its tasks (see stall).
func (f *fleetRuntime) restartAll(ctx context.Context, phase string, ids []int, model string) error {
	f.restartNs = map[int]int64{}
	for _, i := range ids {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		begin := time.Now()
		old := f.procs[i]
		if err := old.stop(f.killAfter); err != nil {
			return fmt.Errorf("stopping instance %d: %w", i, err)
		}
		f.stopped[i] = old.stopped
		f.procs[i] = nil
		p, err := f.launch(i, model)
		if err != nil {
			return err
		}
		if err := f.awaitReady(p); err != nil {
			f.procs[i] = p
			return err
		}
		w := time.Since(begin)
		f.restartNs[i] = int64(w)
		stall := f.stall(i, w)
		f.downUntil[i] = f.tick + stall
		f.rec.Versions = append(f.rec.Versions, schema.VersionChange{AtMs: f.tick * f.cfg.Scenario.StepMs, Instance: i,
			From: old.model, To: model, Phase: phase})
		r := f.ready[i]
		f.logf("%s: instance %d restarted on %s in %s (stalls %d ticks); stores: %s; lost %d, task errors %d",
			phase, i, model, w.Round(time.Millisecond), stall, storeHows(r.Stores), r.Lost, r.TaskErrors)
	}
	return nil
}

func storeHows(ss []goengine.StoreOpen) string {
	n := map[string]int{}
	for _, s := range ss {
		n[s.How]++
	}
	var parts []string
	for _, h := range []string{goengine.StoreReopened, goengine.StoreCaughtUp, goengine.StoreRestored, goengine.StoreNew} {
		if n[h] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[h], h))
		}
	}
	return strings.Join(parts, ", ")
}

// stall maps a restart's wall time onto ticks of simulated time: the
// instance processes one tick of input in perTickNs of wall time at full
// speed, and the input uses Utilization of that, so simulated time runs at
// StepMs × Utilization per perTickNs.
func (f *fleetRuntime) stall(i int, w time.Duration) int64 {
	per := f.perTickNs[i]
	if per <= 0 {
		for _, q := range f.perTickNs {
			per = max(per, q)
		}
	}
	if per <= 0 {
		per = float64(time.Millisecond)
	}
	return int64(math.Ceil(float64(w) * f.cfg.Utilization / per))
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
