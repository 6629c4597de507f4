package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rocksleak/rocksleak/internal/shm"
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
	// Exe and ChildArgs start a child: default the running binary with
	// arguments {"__child"}. The child must call RunChild with its standard
	// input as the job and file descriptor 3 as the event stream.
	Exe       string
	ChildArgs []string
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
	// JVM starts the children of kafka-<version> models (see JVM); Exe and
	// ChildArgs start the Go engine's.
	JVM JVM
	// Progress stops a child that makes no progress (see Progress).
	Progress Progress
	// App, when set, is the user's application every model runs (see App).
	App *App

	diskFull *DiskFullJob // set by RunDiskFull
}

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
	models := cfg.Models
	if err := Preflight(cfg.Scenario); err != nil {
		return nil, err
	}
	if err := cfg.JVM.preflight(models); err != nil {
		return nil, err
	}
	if err := cfg.JVM.preflightApp(models, cfg.App, cfg.Scenario); err != nil {
		return nil, err
	}
	if cfg.App != nil {
		w := cfg.App.Redactor.Writer(cfg.Stderr)
		defer w.Close()
		cfg.Stderr = w
	}
	out := &schema.Output{Started: time.Now().UTC()}
	var failed []string
	for _, m := range models {
		if ctx.Err() != nil {
			out.Interrupted = true
			break
		}
		run := runChild(ctx, cfg, m)
		cfg.App.redactRun(run)
		out.Runs = append(out.Runs, run)
		if run.Summary != nil && run.Summary.Interrupted && run.StoppedByGuard == "" && run.StoppedNoProgress == "" {
			out.Interrupted = true
		}
		if run.Error != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", m, run.Error))
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

// fillDefaults sets cfg's unset fields to their documented defaults.
func fillDefaults(cfg *Config) error {
	if cfg.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		cfg.Exe = exe
	}
	if cfg.ChildArgs == nil {
		cfg.ChildArgs = []string{"__child"}
	}
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

func runChild(ctx context.Context, cfg Config, model string) *schema.ModelRun {
	run := &schema.ModelRun{Model: model}
	rn, err := spec.ParseRunName(model, scenarios.ModelNames())
	if err != nil {
		run.Error = err.Error()
		return run
	}
	preload := ""
	if rn.Allocator == spec.AllocatorJemalloc {
		lib, err := JemallocPath()
		if err != nil {
			run.Error = err.Error()
			return run
		}
		preload = lib
	}
	if rn.JVM() && cfg.Profile != nil {
		run.Error = fmt.Sprintf("%s: --profile profiles the Go engine's models only (the JVM child does not dump jemalloc heap profiles)", model)
		return run
	}
	var gen *workload.Generator // nil for an app: no op stream
	if cfg.App == nil {
		if gen, err = workload.New(cfg.Scenario, cfg.Seed); err != nil {
			run.Error = err.Error()
			return run
		}
	}
	stateDir, err := os.MkdirTemp(cfg.StateRoot, "rocksleak-"+model+"-")
	if err != nil {
		run.Error = err.Error()
		return run
	}
	defer os.RemoveAll(stateDir)

	var prof *ProfileJob
	var profEnv []string
	if cfg.Profile != nil {
		j := newProfileJob(cfg.Profile, cfg.Scenario, model)
		if profEnv, err = profileEnv(j); err != nil {
			run.Error = err.Error()
			return run
		}
		prof = &j
	}
	job := Job{Scenario: cfg.Scenario, Model: model, Seed: cfg.Seed, StateDir: stateDir, Profile: prof,
		Ops: workload.OpsVersion, Synthetic: rn.Synthetic, ReadOptionsFix: rn.ReadOptionsFix, Allocator: string(rn.Allocator), DiskFull: cfg.diskFull}
	if cfg.App != nil {
		// The child ends a runaway allocation itself, naming the application's frames, a little before the
		// guard would kill it from outside.
		app := cfg.App.Job
		app.MaxRSS = cfg.Guard.limit() / 10 * 9
		job.App, job.Ops = &app, 0
	}
	exe, args := cfg.Exe, cfg.ChildArgs
	// Every child's changelogs, made and removed here: under ChangelogRoot,
	// not on the state disk, as Kafka's changelog topics live on the
	// brokers (a full state disk must not fail them).
	job.ChangelogDir, err = os.MkdirTemp(cfg.ChangelogRoot, "rocksleak-"+model+"-changelog-")
	if err != nil {
		run.Error = err.Error()
		return run
	}
	defer os.RemoveAll(job.ChangelogDir)
	if rn.JVM() {
		// The JVM child: its temporary files beside its state, made and
		// removed here.
		job.KafkaVersion = rn.KafkaVersion
		tmp := stateDir + ".tmp"
		if err := os.Mkdir(tmp, 0o755); err != nil {
			run.Error = err.Error()
			return run
		}
		defer os.RemoveAll(tmp)
		line, err := cfg.JVM.Command(rn.KafkaVersion, tmp)
		if err != nil {
			run.Error = err.Error()
			return run
		}
		exe, args = line[0], line[1:]
	}
	jobLine, err := json.Marshal(job)
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
	cmd := exec.Command(exe, args...)
	cmd.Stdin = inR
	cmd.Stdout = io.MultiWriter(cfg.Stderr, tail)
	cmd.Stderr = io.MultiWriter(cfg.Stderr, tail)
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Env = append(append(os.Environ(), ChildEnvVar+"=1"), cfg.ChildEnv...)
	if preload != "" {
		cmd.Env = append(cmd.Env, "LD_PRELOAD="+preload)
	}
	cmd.Env = append(cmd.Env, profEnv...) // the later LD_PRELOAD wins: the same library
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
	go func() { opsDone <- streamOps(inW, jobLine, gen) }()
	defer func() {
		// The child has exited: its end of the pipe is closed, so the writer's
		// next write fails (EPIPE); closing ours ends one blocked on a full pipe.
		inW.Close()
		<-opsDone
	}()
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
			if cfg.Settled != nil && !told && cfg.Settled(model, run.Samples) {
				told = true
				_ = cmd.Process.Signal(StopSignal)
			}
		case e.Summary != nil:
			run.Summary = e.Summary
		}
		if cfg.OnEvent != nil {
			cfg.OnEvent(model, e)
		}
	})
	waitErr := cmd.Wait()
	close(done)
	wg.Wait()
	run.OutsideRSSPeak, run.StoppedByGuard = guard.finish()
	run.StoppedNoProgress = progress.finish(run.Summary, stateDir, cfg.StateRoot)

	switch {
	case run.StoppedByGuard != "":
		run.Error = run.StoppedByGuard
	case run.StoppedNoProgress != "":
		run.Error = run.StoppedNoProgress
	case waitErr != nil && run.Summary != nil && run.Summary.Error != "":
		run.Error = run.Summary.Error
	case waitErr != nil:
		run.Error = fmt.Sprintf("child process %s%s", DescribeExit(waitErr), LastLines(tail.String()))
	case decErr != nil:
		run.Error = fmt.Sprintf("reading the child's events: %v", decErr)
	case run.Summary == nil:
		run.Error = "child ended without a summary" + LastLines(tail.String())
	}
	if prof != nil {
		run.Profile = collectProfile(prof.Dir, model)
	}
	return run
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

// DecodeEvents reads a child's events, one JSON line each, into E (Event,
// or a type that embeds it) and calls fn with each, until r ends.
func DecodeEvents[E any](r io.Reader, fn func(E)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e E
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return err
		}
		fn(e)
	}
	return sc.Err()
}

// DescribeExit says in words how a child process ended (its Wait's error).
func DescribeExit(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("was killed by signal %s", ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return err.Error()
}

// LastLines is "; last output: " and the last lines of a child's output
// (empty when it wrote nothing), for an error message.
func LastLines(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return "; last output: " + strings.Join(lines, " | ")
}

// TailBuffer keeps the last bytes written to it (a child's output, for its
// error message); safe for concurrent use.
type TailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

// NewTailBuffer keeps the last max bytes.
func NewTailBuffer(max int) *TailBuffer { return &TailBuffer{max: max} }

func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// DefaultStateRoot is /dev/shm when it is a writable directory, else the
// system temporary directory. On tmpfs a store's fsyncs cost nothing, so a
// lifecycle's wall time is RocksDB's own work; RocksDB reads its files with
// pread, so their pages are not in the process's RSS either way.
func DefaultStateRoot() string {
	if root, ok := shm.Root(0); ok {
		return root
	}
	return os.TempDir()
}

// JemallocPath finds Debian's libjemalloc2 shared library.
func JemallocPath() (string, error) {
	for _, pat := range []string{"/usr/lib/*/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2", "/usr/lib64/libjemalloc.so.2"} {
		if m, _ := filepath.Glob(pat); len(m) > 0 {
			return m[0], nil
		}
	}
	return "", errors.New("libjemalloc.so.2 not found: install Debian's libjemalloc2 (make run and make test install it)")
}
