package harness

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rocksleak/rocksleak/schema"
)

// Defaults of Progress.
const (
	// DefaultNoLifecycleFor is how long a child may go without completing a
	// lifecycle. The slowest catalogue scenario (scale: 64 tasks opening
	// their stores at the start) completes its first within seconds; two
	// minutes leaves a loaded CI runner a wide margin.
	DefaultNoLifecycleFor = 2 * time.Minute
	// DefaultMaxErrorsPerLifecycle bounds task errors per lifecycle. A
	// healthy catalogue scenario has fewer than one (no-safety-net: a reopen
	// refused by a pinned DB's LOCK now and then); a state disk that is full
	// gave 343 (fixed) and 3,848 (leaky) per lifecycle on main before this
	// check existed (issue 31).
	DefaultMaxErrorsPerLifecycle = 20
	// DefaultMinErrors is the count of task errors below which the ratio is
	// not judged, so that a burst at the start does not stop a model.
	DefaultMinErrors = 500
)

// Progress stops a model's child that spins on a fault that does not pass
// (a full state disk, a store whose open keeps failing): one that completes
// no lifecycle for NoLifecycleFor, or whose task errors exceed
// MaxErrorsPerLifecycle times its lifecycles once there are MinErrors of them
// (task errors and failed inits together). It reads only the samples the
// child streams (Sample.Lifecycles, Sample.TaskErrors, Sample.InitFailures) and the clock: the code under test does not know it. A
// stopped child gets SIGTERM (it ends its run and sends its summary, as at an
// interrupt), then SIGKILL after KillAfter; its run is failed with the cause
// (schema.ModelRun.StoppedNoProgress), naming the first error RocksDB gave.
// The memory guard (Guard) still watches the RSS: it is the last line of
// defence, this the first.
type Progress struct {
	// NoLifecycleFor: 0 means DefaultNoLifecycleFor, < 0 no limit.
	NoLifecycleFor time.Duration
	// MaxErrorsPerLifecycle: 0 means DefaultMaxErrorsPerLifecycle, < 0 no limit.
	MaxErrorsPerLifecycle float64
	// MinErrors: 0 means DefaultMinErrors.
	MinErrors int64
	// Interval between two looks at the clock; default 1 s.
	Interval time.Duration
	// KillAfter is how long a stopped child has to end after SIGTERM;
	// default 20 s.
	KillAfter time.Duration
}

func (p Progress) resolved() Progress {
	if p.NoLifecycleFor == 0 {
		p.NoLifecycleFor = DefaultNoLifecycleFor
	}
	if p.MaxErrorsPerLifecycle == 0 {
		p.MaxErrorsPerLifecycle = DefaultMaxErrorsPerLifecycle
	}
	if p.MinErrors <= 0 {
		p.MinErrors = DefaultMinErrors
	}
	if p.Interval <= 0 {
		p.Interval = time.Second
	}
	if p.KillAfter <= 0 {
		p.KillAfter = 20 * time.Second
	}
	return p
}

// verdict is why the samples so far show no progress, "" when they do not:
// s is the latest sample, sinceLC the time since the lifecycle count last grew
// (or the child started).
//
// The errors it counts are the task errors and the failed inits
// (Sample.InitFailures: opens that failed, retried or not, including a window
// store's segment opens that never reach a task error): a store that fails
// every open on a full disk shows as failed inits first.
func (p Progress) verdict(s schema.Sample, sinceLC time.Duration) string {
	errs := s.TaskErrors + s.InitFailures
	if p.MaxErrorsPerLifecycle > 0 && errs >= p.MinErrors &&
		float64(errs) > p.MaxErrorsPerLifecycle*float64(max(s.Lifecycles, 1)) {
		return fmt.Sprintf("%d task errors and %d failed inits against %d lifecycles in %s, more than %g per lifecycle",
			s.TaskErrors, s.InitFailures, s.Lifecycles, time.Duration(s.ElapsedNs).Round(time.Second), p.MaxErrorsPerLifecycle)
	}
	if p.NoLifecycleFor > 0 && sinceLC >= p.NoLifecycleFor {
		return fmt.Sprintf("no lifecycle completed for %s (%d lifecycles, %d task errors and %d failed inits so far)",
			p.NoLifecycleFor, s.Lifecycles, s.TaskErrors, s.InitFailures)
	}
	return ""
}

// progressWatch is one child being watched.
type progressWatch struct {
	p      Progress
	proc   *os.Process
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	last   schema.Sample
	lastLC time.Time
	reason string
	kill   *time.Timer // SIGKILL after KillAfter, once stopped
}

// watch starts watching proc: observe feeds it the child's samples, finish
// ends it.
func (p Progress) watch(proc *os.Process) *progressWatch {
	p = p.resolved()
	w := &progressWatch{p: p, proc: proc, stop: make(chan struct{}), done: make(chan struct{}), lastLC: time.Now()}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(p.Interval)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				w.check()
			}
		}
	}()
	return w
}

// observe takes one of the child's samples.
func (w *progressWatch) observe(s schema.Sample) {
	w.mu.Lock()
	if s.Lifecycles > w.last.Lifecycles {
		w.lastLC = time.Now()
	}
	w.last = s
	w.mu.Unlock()
	w.check() // the ratio trips at once; the clock on the ticker too
}

// check stops the child when the samples show no progress: SIGTERM, and
// SIGKILL after KillAfter.
func (w *progressWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reason != "" {
		return
	}
	r := w.p.verdict(w.last, time.Since(w.lastLC))
	if r == "" {
		return
	}
	w.reason = r
	_ = w.proc.Signal(syscall.SIGTERM)
	w.kill = time.AfterFunc(w.p.KillAfter, func() { _ = w.proc.Kill() })
}

// finish stops watching (call it after the child has been waited for) and
// returns why the child was stopped, in words with the first task error
// (firstErr: the summary's first example, else the one the child told as it
// happened) and what to fix, or "" when it was not. stateDir is the model's state
// directory, shortened to "…" in the error it quotes; stateRoot is the flag's
// value, for the advice; faults are the storage faults the run met (its
// first error, capped, may not name them), for the advice too.
func (w *progressWatch) finish(firstErr string, faults []string, stateDir, stateRoot string) string {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kill != nil {
		w.kill.Stop()
	}
	if w.reason == "" {
		return ""
	}
	msg := "stopped for making no progress: " + w.reason
	first := ""
	if firstErr != "" {
		first = strings.ReplaceAll(firstErr, stateDir, "…")
		msg += "; the first task error: " + first
	}
	return msg + "; to fix: " + noProgressAdvice(first, faults, stateRoot)
}

// noProgressAdvice is NoProgressFix of the first task error and the storage
// faults the run met.
func noProgressAdvice(first string, faults []string, stateRoot string) string {
	for _, k := range faults {
		first += "; " + schema.StorageFaultWords(k)
	}
	return NoProgressFix(first, stateRoot)
}

// NoProgressFix says what a user can do about a model that stopped making
// progress, from the first task error it quoted.
func NoProgressFix(firstErr, stateRoot string) string {
	switch {
	case strings.Contains(firstErr, "No space left on device"):
		return fmt.Sprintf("the state directory %s is full: free space there or give --state-dir a larger file system (the run checks the scenario's estimate before it starts unless --no-space-check)", stateRoot)
	case strings.Contains(firstErr, "Read-only file system"), strings.Contains(firstErr, "Permission denied"):
		return fmt.Sprintf("the state directory %s cannot be written: give --state-dir a writable one", stateRoot)
	case firstErr == "":
		return "the child made no progress and reported no task error: rerun with a shorter stop condition and look at its output"
	}
	return "the stores keep failing with the error above: fix its cause (result.json lists the first task errors under task_error_examples)"
}
