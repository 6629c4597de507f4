package harness

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/rocksleak/rocksleak/host"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
)

// DefaultMaxRSSShare is the share of the machine's memory budget
// (host.MemoryBudget: the memory available when the run starts, or the
// cgroup's memory.max when that is smaller) a child may take by default
// before the guard stops it.
const DefaultMaxRSSShare = 0.5

// DefaultMaxRSS is DefaultMaxRSSShare of m's memory budget; 0 (no limit) when
// the budget is unknown.
func DefaultMaxRSS(m schema.Machine) int64 {
	return int64(DefaultMaxRSSShare * float64(host.MemoryBudget(m)))
}

// Guard watches each child's RSS from outside (host.RSS: /proc via gopsutil)
// and stops a child whose RSS crosses MaxRSS, before it exhausts the machine
// and meets the OOM killer: SIGTERM, so that the child ends its run and sends
// its summary as at an interrupt, then SIGKILL after KillAfter. The run of a
// stopped child is failed, its samples kept, and
// schema.ModelRun.StoppedByGuard says why.
type Guard struct {
	// MaxRSS in bytes; 0 means DefaultMaxRSS of this machine, < 0 no limit
	// (the child is still watched, for the outside RSS peak).
	MaxRSS int64
	// Interval between two looks; default 100 ms.
	Interval time.Duration
	// KillAfter is how long a stopped child has to end after SIGTERM;
	// default 5 s.
	KillAfter time.Duration
}

// limit is the resolved MaxRSS: > 0 a limit, 0 none.
func (g Guard) limit() int64 {
	switch {
	case g.MaxRSS > 0:
		return g.MaxRSS
	case g.MaxRSS < 0:
		return 0
	}
	return DefaultMaxRSS(host.Facts())
}

// guardWatch is one child being watched.
type guardWatch struct {
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	peak   int64
	reason string
}

// watch starts watching proc until finish is called.
func (g Guard) watch(proc *os.Process) *guardWatch {
	w := &guardWatch{stop: make(chan struct{}), done: make(chan struct{})}
	limit, every, killAfter := g.limit(), g.Interval, g.KillAfter
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	if killAfter <= 0 {
		killAfter = 5 * time.Second
	}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		var killAt <-chan time.Time
		for {
			select {
			case <-w.stop:
				return
			case <-killAt:
				_ = proc.Kill()
				killAt = nil
			case <-tick.C:
				rss, err := host.RSS(proc.Pid)
				if err != nil {
					continue // the child is ending; Wait says how
				}
				w.mu.Lock()
				w.peak = max(w.peak, rss)
				tripped := limit > 0 && rss > limit && w.reason == ""
				if tripped {
					w.reason = fmt.Sprintf("stopped by the memory guard: the child's RSS seen from outside reached %s, over --max-rss %s",
						units.FormatBytes(float64(rss)), units.FormatBytes(float64(limit)))
				}
				w.mu.Unlock()
				if tripped {
					_ = proc.Signal(syscall.SIGTERM)
					killAt = time.After(killAfter)
				}
			}
		}
	}()
	return w
}

// finish stops watching (call it after the child has been waited for) and
// returns the largest RSS seen and why the guard stopped the child ("" if it
// did not).
func (w *guardWatch) finish() (peak int64, reason string) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak, w.reason
}
