package workload

import (
	"bufio"

	"fmt"
	"io"
	"iter"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

// InitTries is how many times an executor tries an open that fails only by
// an injected init failure: once and up to five retries. An open whose
// InitFailures is InitTries or more fails for good (a task error).
const InitTries = 6

// Generator produces a scenario's schedule lazily, one step at a time: it
// holds at most one step's ops (tasks × stores × records_per_step puts and a
// few more), never the schedule. The schedule is infinite (it has no end op):
// the executor stops at the scenario's stop condition, which it counts
// itself. A Generator is not safe for concurrent use.
type Generator struct {
	sc       scenarios.Scenario
	window   bool
	interval int64
	// keys draws the record keys and the rebalanced tasks (the stream
	// engine/goengine's topology drew them from: PCG(seed, 0x5eed)).
	keys *rand.Rand
	// faults draws the close faults and init failures (the stream
	// lifecycle.Injector drew them from: PCG(seed, seed^0x9e3779b97f4a7c15)).
	faults    *rand.Rand
	closeKind spec.Fault

	started    bool
	step       int64
	streamTime int64
	ver        int64
	// maxSeg is, per store (task*stores+store), the highest window segment
	// id a put has written (-1: none): a put beyond it creates a segment.
	maxSeg []int64

	queue []Op
	head  int
}

// New returns the generator of scenario sc's schedule under seed (the run's
// seed, as the job carries it). The error names the first scenario field the
// schedule cannot be made from.
func New(sc scenarios.Scenario, seed int64) (*Generator, error) {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("%w: scenario %q: %s: %v (want %s)", scenarios.ErrInvalid, sc.Name, field, v, want)
	}
	switch {
	case sc.Tasks < 1:
		return nil, bad("tasks", sc.Tasks, "≥ 1")
	case sc.StoresPerTask < 1:
		return nil, bad("stores_per_task", sc.StoresPerTask, "≥ 1")
	case sc.KeySpread < 1:
		return nil, bad("key_spread", sc.KeySpread, "≥ 1")
	case sc.StepMs <= 0:
		return nil, bad("step_ms", sc.StepMs, "> 0")
	case sc.RecordsPerStep < 0:
		return nil, bad("records_per_step", sc.RecordsPerStep, "≥ 0")
	case !(sc.CloseFailureRate >= 0 && sc.CloseFailureRate <= 1):
		return nil, bad("close_failure_rate", sc.CloseFailureRate, "in [0,1]")
	case !(sc.InitFailureRate >= 0 && sc.InitFailureRate <= 1):
		return nil, bad("init_failure_rate", sc.InitFailureRate, "in [0,1]")
	case sc.RebalanceEverySteps < 0:
		return nil, bad("rebalance_every_steps", sc.RebalanceEverySteps, "≥ 0")
	case sc.RebalanceEverySteps > 0 && !(sc.RebalanceTasks > 0 && sc.RebalanceTasks <= 1):
		return nil, bad("rebalance_tasks", sc.RebalanceTasks, "in (0,1]")
	case sc.Store == scenarios.StoreWindow && sc.RetentionMs <= 0:
		return nil, bad("retention_ms", sc.RetentionMs, "> 0 for a window store")
	}
	switch sc.Store {
	case scenarios.StoreKV, scenarios.StoreWindow, scenarios.StoreMigrating:
	default:
		return nil, bad("store", fmt.Sprintf("%q", sc.Store), "kv, window or migrating")
	}
	g := &Generator{sc: sc, window: sc.Store == scenarios.StoreWindow}
	if sc.CloseFailureRate > 0 {
		f, err := spec.ParseFault(string(sc.CloseFailureKind))
		if err != nil {
			return nil, fmt.Errorf("%w: scenario %q: close_failure_kind: %w", scenarios.ErrInvalid, sc.Name, err)
		}
		g.closeKind = f
	}
	if g.window {
		g.interval = sc.SegmentInterval()
	}
	u := uint64(seed)
	g.keys = rand.New(rand.NewPCG(u, 0x5eed))
	g.faults = rand.New(rand.NewPCG(u, u^0x9e3779b97f4a7c15))
	g.maxSeg = make([]int64, sc.Tasks*sc.StoresPerTask)
	for i := range g.maxSeg {
		g.maxSeg[i] = -1
	}
	return g, nil
}

// Next returns the schedule's next op. The schedule never ends.
func (g *Generator) Next() Op {
	if g.head == len(g.queue) {
		g.queue, g.head = g.queue[:0], 0
		if !g.started {
			g.started = true
			g.start()
		} else {
			g.nextStep()
		}
	}
	op := g.queue[g.head]
	g.queue[g.head] = Op{} // drop the reference to Tasks
	g.head++
	return op
}

// All yields the schedule's ops from the next one on; the caller stops it.
func (g *Generator) All() iter.Seq[Op] {
	return func(yield func(Op) bool) {
		for yield(g.Next()) {
		}
	}
}

// WriteTo writes the schedule's ops as JSON lines to w until a write fails
// (the reader went away: the child exited or closed its input) or stop is
// closed, and returns the write's error (nil when stopped). It buffers at
// most 64 KiB; w's own back-pressure (a pipe the child reads) paces it.
func (g *Generator) WriteTo(w io.Writer, stop <-chan struct{}) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		line = g.Next().AppendJSON(line[:0])
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
}

func (g *Generator) emit(op Op) { g.queue = append(g.queue, op) }

// start opens every store of every task (seeding a migrating store's
// old-format data first), with a sample point after each task.
func (g *Generator) start() {
	for t := range g.sc.Tasks {
		for s := range g.sc.StoresPerTask {
			if g.sc.Store == scenarios.StoreMigrating {
				g.emit(Op{Kind: KindSeedOld, Task: t, Store: s})
			}
			g.emit(Op{Kind: KindOpen, Task: t, Store: s, StreamTime: g.streamTime, InitFailures: g.initFailures()})
		}
		g.emit(Op{Kind: KindSamplePoint})
	}
}

// nextStep is one step: stream time advances by step_ms; every task arms the
// close faults of the segments its step expires, writes records_per_step
// records into each of its stores (with read_back, each put preceded by a get
// of its key, and the commit by a range of each store), commits and offers a
// sample point; every
// rebalance_every_steps steps a share of the tasks is closed and reopened.
func (g *Generator) nextStep() {
	g.step++
	prev := g.streamTime
	g.streamTime += g.sc.StepMs
	g.emit(Op{Kind: KindStep, Step: g.step, StreamTime: g.streamTime})
	rolls := g.window && g.rolls(prev, g.streamTime)
	n := g.sc.RecordsPerStep
	for t := range g.sc.Tasks {
		if rolls {
			g.arm(t)
		}
		for s := range g.sc.StoresPerTask {
			for i := range n {
				ts := prev + int64(i+1)*g.sc.StepMs/int64(n)
				op := Op{Kind: KindPut, Task: t, Store: s, Key: Key(g.keys.IntN(g.sc.KeySpread)), Ts: ts}
				g.ver++
				op.Ver = g.ver
				if g.window {
					if id, k := ts/g.interval, t*g.sc.StoresPerTask+s; id > g.maxSeg[k] {
						g.maxSeg[k] = id
						op.InitFailures = g.initFailures()
					}
				}
				if g.sc.ReadBack {
					g.emit(Op{Kind: KindGet, Task: t, Store: s, Key: op.Key, Ts: ts})
				}
				g.emit(op)
			}
		}
		if g.sc.ReadBack {
			for s := range g.sc.StoresPerTask {
				g.emit(Op{Kind: KindRange, Task: t, Store: s})
			}
		}
		g.emit(Op{Kind: KindCommit, Task: t})
		g.emit(Op{Kind: KindSamplePoint})
	}
	if every := int64(g.sc.RebalanceEverySteps); every > 0 && g.step%every == 0 {
		g.rebalance()
	}
}

// rolls reports whether stream time moving from prev to now expires a
// segment (the oldest live segment id changes).
func (g *Generator) rolls(prev, now int64) bool {
	minLive := func(st int64) int64 { return max(st-g.sc.RetentionMs, 0) / g.interval }
	return minLive(now) != minLive(prev)
}

// arm draws the close faults of task t's stores for the closes to come: one
// draw per store; under the cascade (exactly-once v2 fencing) one failure
// fails every store of the task. It emits an arm op per store that fails.
func (g *Generator) arm(t int) {
	faults := make([]spec.Fault, g.sc.StoresPerTask)
	var any spec.Fault
	for s := range faults {
		if f := g.closeFault(); f != "" {
			faults[s], any = f, f
		}
	}
	for s, f := range faults {
		if g.sc.Cascade {
			f = any
		}
		if f != "" {
			g.emit(Op{Kind: KindArm, Task: t, Store: s, Fault: f})
		}
	}
}

// rebalance moves ceil(rebalance_tasks × tasks) tasks, drawn at random:
// each is closed (its close faults armed first) and reopened.
func (g *Generator) rebalance() {
	n := int(math.Ceil(g.sc.RebalanceTasks * float64(g.sc.Tasks)))
	perm := g.keys.Perm(g.sc.Tasks)[:n]
	sort.Ints(perm)
	g.emit(Op{Kind: KindRebalance, Tasks: perm})
	for _, t := range perm {
		g.arm(t)
		for s := range g.sc.StoresPerTask {
			g.emit(Op{Kind: KindClose, Task: t, Store: s})
		}
		for s := range g.sc.StoresPerTask {
			g.emit(Op{Kind: KindOpen, Task: t, Store: s, StreamTime: g.streamTime, InitFailures: g.initFailures()})
		}
		g.emit(Op{Kind: KindSamplePoint})
	}
}

// closeFault draws one close: the scenario's fault kind with probability
// close_failure_rate, else "" (no fault).
func (g *Generator) closeFault() spec.Fault {
	if g.sc.CloseFailureRate == 0 {
		return ""
	}
	if g.faults.Float64() < g.sc.CloseFailureRate {
		return g.closeKind
	}
	return ""
}

// initFailures draws one open: how many of its tries fail during init, each
// with probability init_failure_rate, stopping at the first success (at most
// InitTries).
func (g *Generator) initFailures() int {
	if g.sc.InitFailureRate == 0 {
		return 0
	}
	k := 0
	for k < InitTries && g.faults.Float64() < g.sc.InitFailureRate {
		k++
	}
	return k
}
