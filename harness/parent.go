package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/workload"
)

// Config says what the parent runs and how it starts children.
type Config struct {
	Scenario scenarios.Scenario
	Models   []string // in run order; default Scenario.Models
	Seed     int64
	// Engines start the children: each model's is the first engine that
	// runs it (engine.For). Package engine/goengine's and engine/jvm's are
	// the two; harness imports neither.
	Engines []engine.Engine
	// ChildEnv is added to each child's environment (e.g. LD_PRELOAD).
	ChildEnv []string
	// StateRoot is where per-model state directories are made; default
	// DefaultStateRoot(). Every one is removed when its child ends.
	StateRoot string
	// ChangelogRoot is where per-model changelog directories (the brokers'
	// stand-in) are made, apart from the state disk; default
	// DefaultStateRoot(). Every one is removed when its child ends.
	ChangelogRoot string
	// Stderr receives the children's standard error; default discarded.
	Stderr io.Writer
	// OnEvent, if set, sees every event as it arrives (for progress).
	OnEvent func(model string, e Event)
	// Settled, if set, is asked after every sample whether the model's
	// verdict is settled; once it says yes the child is told to stop (it
	// finishes as at its stop condition, not as interrupted).
	Settled func(model string, samples []schema.Sample) bool
	// Profile, if set, profiles every model's heap by allocation stack (see Profile).
	Profile *Profile
	// KillAfter is how long a child has to stop after SIGTERM before SIGKILL;
	// default 20 s.
	KillAfter time.Duration
	// Guard stops a child whose RSS crosses its limit (see Guard).
	Guard Guard
	// Progress stops a child that makes no progress (see Progress).
	Progress Progress
	// App, when set, is the user's application every model runs (see App).
	App *App

	diskFull *DiskFullJob // set by RunDiskFull
}

// ChildEnvVar marks a process started by the parent as a model child.
const ChildEnvVar = "ROCKSLEAK_CHILD"

// StopSignal tells a child its verdict is settled: it stops as at its stop
// condition.
const StopSignal = syscall.SIGUSR1

// ErrChild means at least one model's child failed; the schema.Output still holds
// what every child sent.
var ErrChild = errors.New("a model's child process failed")

// Run runs each model in a child process, one after another. When ctx is
// cancelled the running child is asked to stop (SIGTERM), no further model is
// started, and schema.Output.Interrupted is set. A child that crashes does not stop
// the run: its schema.ModelRun carries the error and Run returns an error wrapping
// ErrChild after the remaining models.
func Run(ctx context.Context, cfg Config) (*schema.Output, error) {
	if err := fillDefaults(&cfg); err != nil {
		return nil, err
	}
	if err := Preflight(cfg.Scenario); err != nil {
		return nil, err
	}
	runs := parseRuns(cfg.Models)
	if err := preflightEngines(cfg, runs); err != nil {
		return nil, err
	}
	if err := preflightApp(cfg, runs); err != nil {
		return nil, err
	}
	if cfg.App != nil {
		w := cfg.App.Redactor.Writer(cfg.Stderr)
		defer w.Close()
		cfg.Stderr = w
	}
	out := &schema.Output{Started: time.Now().UTC()}
	var failed []string
	for _, r := range runs {
		if ctx.Err() != nil {
			out.Interrupted = true
			break
		}
		run := runChild(ctx, cfg, r)
		cfg.App.redactRun(run)
		out.Runs = append(out.Runs, run)
		if run.Summary != nil && run.Summary.Interrupted && run.StoppedByGuard == "" && run.StoppedNoProgress == "" {
			out.Interrupted = true
		}
		if run.Error != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", r.name, run.Error))
		}
	}
	if ctx.Err() != nil {
		out.Interrupted = true
	}
	out.Ended = time.Now().UTC()
	if len(failed) > 0 {
		return out, fmt.Errorf("%w: %s", ErrChild, strings.Join(failed, "; "))
	}
	return out, nil
}

// modelRun is one entry of Config.Models, its run name parsed once here, at
// the run half's edge (err when it does not parse: the run reports it).
type modelRun struct {
	name string
	rn   spec.RunName
	err  error
}

func parseRuns(models []string) []modelRun {
	out := make([]modelRun, 0, len(models))
	for _, m := range models {
		rn, err := spec.ParseRunName(m, scenarios.ModelNames())
		out = append(out, modelRun{name: m, rn: rn, err: err})
	}
	return out
}

// preflightEngines checks, before any model runs, that every model's engine
// honours the scenario and the run's options (engine.Refuse: its
// capabilities) and can start its child (engine.Engine.Preflight); models
// whose name does not parse are left to their run.
func preflightEngines(cfg Config, runs []modelRun) error {
	var errs []error
	for _, r := range runs {
		if r.err != nil {
			continue
		}
		e, err := engine.For(cfg.Engines, r.rn)
		if err == nil {
			err = engine.Refuse(e, cfg.Scenario, cfg.Profile != nil)
		}
		if err == nil {
			err = e.Preflight(r.rn)
		}
		if err == nil && cfg.Profile != nil {
			err = preflightProfile(e)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.name, err))
		}
	}
	return errors.Join(errs...)
}

// fillDefaults sets cfg's unset fields to their documented defaults.
func fillDefaults(cfg *Config) error {
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if cfg.StateRoot == "" {
		cfg.StateRoot = DefaultStateRoot()
	}
	if cfg.ChangelogRoot == "" {
		cfg.ChangelogRoot = DefaultStateRoot()
	}
	if cfg.KillAfter == 0 {
		cfg.KillAfter = 20 * time.Second
	}
	if len(cfg.Models) == 0 {
		cfg.Models = cfg.Scenario.Models
	}
	return nil
}

// runChild runs one model's child: the state and changelog directories it
// is given, its engine's command line (engine.For), the job and op stream on
// its standard input, its events, and how it ended. Everything it made is
// removed when it returns.
func runChild(ctx context.Context, cfg Config, r modelRun) *schema.ModelRun {
	run := &schema.ModelRun{Model: r.name}
	p, err := planChild(cfg, r)
	defer p.cleanup()
	if err != nil {
		run.Error = err.Error()
		return run
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		run.Error = err.Error()
		return run
	}
	defer pr.Close()
	// Standard input: the job's line, then the op stream, written as the
	// child reads it (see streamOps).
	inR, inW, err := os.Pipe()
	if err != nil {
		pw.Close()
		run.Error = err.Error()
		return run
	}
	tail := NewTailBuffer(4096)
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Stdin = inR
	cmd.Stdout = io.MultiWriter(cfg.Stderr, tail)
	cmd.Stderr = io.MultiWriter(cfg.Stderr, tail)
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Env = p.env
	// Own process group: a terminal's Ctrl-C reaches the parent, which stops
	// the child in order; the child dies with the parent.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	err = cmd.Start()
	pw.Close()
	inR.Close()
	if err != nil {
		inW.Close()
		run.Error = fmt.Sprintf("starting the child: %v", err)
		return run
	}
	opsDone := make(chan error, 1)
	go func() { opsDone <- streamOps(inW, p.jobLine, p.gen) }()
	defer func() {
		// The child has exited: its end of the pipe is closed, so the writer's
		// next write fails (EPIPE); closing ours ends one blocked on a full pipe.
		inW.Close()
		<-opsDone
	}()
	watchChild(ctx, cfg, p, cmd, pr, tail, run)
	return run
}

// childPlan is what a model's child is started with: its directories, command
// line, environment and job, and what removes what was made for it.
type childPlan struct {
	stateDir string
	argv     []string
	env      []string
	jobLine  []byte
	gen      *workload.Generator
	prof     *ProfileJob
	native   engine.NativeProfiler // the engine that records for --profile, when not jemalloc's dumps
	cleanups []func()
}

// cleanup removes what planChild made, last made first.
func (p *childPlan) cleanup() {
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
}

// planChild makes model r's state directory (under StateRoot) and changelog
// directory (under ChangelogRoot), its job, its engine's command line and its
// environment (the allocator preloaded, the profiler's settings).
func planChild(cfg Config, r modelRun) (*childPlan, error) {
	p := &childPlan{}
	if r.err != nil {
		return p, r.err
	}
	preload := ""
	if r.rn.Allocator == spec.AllocatorJemalloc {
		lib, err := JemallocPath()
		if err != nil {
			return p, err
		}
		preload = lib
	}
	eng, err := engine.For(cfg.Engines, r.rn)
	if err != nil {
		return p, err
	}
	// An app's child reads no op stream.
	if cfg.App == nil {
		if p.gen, err = workload.New(cfg.Scenario, cfg.Seed); err != nil {
			return p, err
		}
	}
	if p.stateDir, err = os.MkdirTemp(cfg.StateRoot, "rocksleak-"+r.name+"-"); err != nil {
		return p, err
	}
	p.cleanups = append(p.cleanups, func() { os.RemoveAll(p.stateDir) })
	var profEnv []string
	if cfg.Profile != nil {
		j := newProfileJob(cfg.Profile, cfg.Scenario, r.name)
		if p.native, profEnv, err = childProfile(&j, eng); err != nil {
			return p, err
		}
		p.prof = &j
	}
	job := Job{Scenario: cfg.Scenario, Model: r.name, RunName: r.rn, Seed: cfg.Seed, StateDir: p.stateDir,
		Profile: p.prof, Ops: workload.OpsVersion, DiskFull: cfg.diskFull}
	if cfg.App != nil {
		// The child ends a runaway allocation itself, naming the application's frames (at 3/4 of the limit, watched every 50 ms), before the
		// guard would kill it from outside.
		app := cfg.App.Job
		app.MaxRSS = cfg.Guard.limit() / 4 * 3
		job.App, job.Ops = &app, 0
	}
	// Every child's changelogs, made and removed here: under ChangelogRoot,
	// not on the state disk, as Kafka's changelog topics live on the
	// brokers (a full state disk must not fail them).
	if job.ChangelogDir, err = os.MkdirTemp(cfg.ChangelogRoot, "rocksleak-"+r.name+"-changelog-"); err != nil {
		return p, err
	}
	p.cleanups = append(p.cleanups, func() { os.RemoveAll(job.ChangelogDir) })
	argv, done, err := eng.Command(r.rn, job.ChangelogDir)
	p.cleanups = append(p.cleanups, done)
	if err == nil && p.native != nil {
		argv, err = p.native.ProfileCommand(argv)
	}
	if err != nil {
		return p, err
	}
	p.argv = argv
	if p.jobLine, err = json.Marshal(job); err != nil {
		return p, err
	}
	p.env = append(append(os.Environ(), ChildEnvVar+"=1"), cfg.ChildEnv...)
	if preload != "" {
		p.env = append(p.env, "LD_PRELOAD="+preload)
	}
	p.env = append(p.env, profEnv...) // the later LD_PRELOAD wins: the same library
	return p, nil
}

// watchChild reads the started child's events from pr into run until it
// ends, watches its memory and progress, stops it when ctx is cancelled
// (SIGTERM, then SIGKILL after KillAfter) or tells it its verdict is settled,
// and says in run.Error how it ended when not well.
func watchChild(ctx context.Context, cfg Config, p *childPlan, cmd *exec.Cmd, pr io.Reader, tail *TailBuffer, run *schema.ModelRun) {
	guard := cfg.Guard.watch(cmd.Process)
	progress := cfg.Progress.watch(cmd.Process)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(cfg.KillAfter):
				_ = cmd.Process.Kill()
			}
		case <-done:
		}
	}()
	told := false
	decErr := DecodeEvents(pr, func(e Event) {
		switch {
		case e.Info != nil:
			run.Info = *e.Info
		case e.Sample != nil:
			run.Samples = append(run.Samples, *e.Sample)
			progress.observe(*e.Sample)
			if cfg.Settled != nil && !told && cfg.Settled(run.Model, run.Samples) {
				told = true
				_ = cmd.Process.Signal(StopSignal)
			}
		case e.Summary != nil:
			run.Summary = e.Summary
			run.Summary.NormalizeTaskErrors()
		case e.TaskError != nil:
			if run.FirstTaskError == "" {
				run.FirstTaskError = e.TaskError.Error
			}
			for _, k := range e.TaskError.Faults {
				if !slices.Contains(run.FaultsSeen, k) {
					run.FaultsSeen = append(run.FaultsSeen, k)
				}
			}
		}
		if cfg.OnEvent != nil {
			cfg.OnEvent(run.Model, e)
		}
	})
	waitErr := cmd.Wait()
	close(done)
	wg.Wait()
	run.StateLeft = removeState(p.stateDir)
	run.OutsideRSSPeak, run.StoppedByGuard = guard.finish()
	firstErr := run.FirstTaskError
	if run.Summary != nil && len(run.Summary.TaskErrorList) > 0 {
		firstErr = run.Summary.TaskErrorList[0]
	}
	faults := slices.Clone(run.FaultsSeen)
	if run.Summary != nil {
		for k := range run.Summary.StorageFaults {
			if !slices.Contains(faults, k) {
				faults = append(faults, k)
			}
		}
	}
	slices.Sort(faults)
	run.StoppedNoProgress = progress.finish(firstErr, faults, p.stateDir, cfg.StateRoot)
	run.Error = endError(run, waitErr, decErr, tail)
	switch {
	case p.native != nil:
		run.Profile = p.native.CollectProfile(p.prof.Dir, run.Model, run.Samples)
	case p.prof != nil:
		run.Profile = collectProfile(p.prof.Dir, run.Model)
	}
}

// streamOps writes the job's line and then the schedule's op stream to a
// child's standard input until a write fails: the child exited or closed its
// input (or w was closed). Nothing is held beyond the generator's step and
// one 64 KiB buffer: the pipe's back-pressure paces it.
func streamOps(w io.Writer, job []byte, gen *workload.Generator) error {
	if _, err := w.Write(append(job, '\n')); err != nil || gen == nil {
		return err
	}
	return gen.WriteTo(w, nil)
}
