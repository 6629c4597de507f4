package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/workload"
)

// InstanceJob makes a child one instance of a fleet (Job.Instance): it owns
// Tasks, keeps its state in the job's StateDir across restarts (the child
// never removes it), appends its tasks' records to the fleet's changelog
// files under FleetRoot and takes commands from the parent (InstanceCommand
// lines on its standard input, after the job).
type InstanceJob struct {
	ID    int   `json:"id"`
	Tasks []int `json:"tasks"`
	// Positions are the tasks' committed input positions: the steps of
	// input each task has processed (absent: 0).
	Positions map[int]int64 `json:"positions"`
	// FleetRoot holds the changelogs (see changelog.Path).
	FleetRoot string `json:"fleet_root"`
	// FleetSeed draws the records and their values (the same for every
	// instance); the job's Seed drives this incarnation's faults.
	FleetSeed int64 `json:"fleet_seed"`
}

// InstanceCommand is one command from the parent; exactly one field is set.
type InstanceCommand struct {
	// Tick: process every owned task up to input step Until, at most Budget
	// steps per task; answered by an InstanceTick event.
	Tick *TickCommand `json:"tick,omitempty"`
	// PhaseEnd: report the phase (InstancePhaseEnd) and start a new one.
	PhaseEnd bool `json:"phase_end,omitempty"`
	// Stop: close every store as the model closes it, report the committed
	// offsets (InstanceStopped), a Summary, and exit; the state stays.
	Stop bool `json:"stop,omitempty"`
}

// TickCommand is a tick's work (see InstanceCommand).
type TickCommand struct {
	Until  int64 `json:"until"`
	Budget int   `json:"budget"`
}

// InstanceReady is sent once the instance's stores are open: reopened over
// its own state (catching up from the changelog when behind), restored from
// the changelog (a task it did not hold), or new.
type InstanceReady struct {
	Stores []StoreOpen `json:"stores"`
	// Lost counts changelog records the opened stores did not hold (the
	// topology's verify); TaskErrors the errors while opening.
	Lost       int64 `json:"lost"`
	Verified   int64 `json:"verified"`
	TaskErrors int64 `json:"task_errors"`
	OpenNs     int64 `json:"open_ns"` // wall time to open every store
}

// How a store came up at an instance's start.
const (
	StoreReopened = "reopened"  // own state, committed offset at the changelog's end
	StoreCaughtUp = "caught-up" // own state behind the changelog: replayed
	StoreRestored = "restored"  // wiped (unclean status) or not held: restored from the changelog
	StoreNew      = "new"       // nothing to restore
)

// StoreOpen is one store at an instance's start.
type StoreOpen struct {
	Task  int    `json:"task"`
	Store int    `json:"store"`
	How   string `json:"how"`
	// Committed is the changelog offset the store had committed when it
	// was opened (HasCommitted false: none); ChangelogEnd the changelog's
	// end offset then.
	Committed    int64  `json:"committed"`
	HasCommitted bool   `json:"has_committed"`
	ChangelogEnd int64  `json:"changelog_end"`
	Error        string `json:"error,omitempty"`
}

// InstanceTick answers a TickCommand.
type InstanceTick struct {
	Positions map[int]int64 `json:"positions"`
	Steps     int64         `json:"steps"`   // task-steps processed in this tick
	BusyNs    int64         `json:"busy_ns"` // wall time spent processing them
}

// InstancePhaseEnd reports the phase that just ended.
type InstancePhaseEnd struct {
	// Summary holds the phase's counters (differences over the phase) and
	// the restores during it (a new process: since its start).
	Summary schema.Summary `json:"summary"`
	Outputs []TaskOutput   `json:"outputs"`
}

// TaskOutput is the hash of a task's outputs over input steps [From, To).
type TaskOutput struct {
	Task    int    `json:"task"`
	From    int64  `json:"from"`
	To      int64  `json:"to"`
	Hash    uint64 `json:"hash"`
	Records int64  `json:"records"`
}

// InstanceStopped is sent at a Stop, before the stores close: each store's
// committed changelog offset and the changelog's end.
type InstanceStopped struct {
	Stores []StoreOpen `json:"stores"`
}

// instance is the child side of a fleet instance.
type instance struct {
	job   InstanceJob
	topo  *topology
	rec   *recorder
	emit  func(Event) error
	pos   map[int]int64
	owned []*task

	// The phase's marks: counters at its start, outputs since.
	mark     schema.Summary
	markRest int64
	markRecs int64
	markRLC  int64
	outFrom  map[int]int64
	outHash  map[int]uint64
	outCount map[int]int64
}

// runInstance is RunChild for an instance job: dec has read the job and
// reads the commands next.
func runInstance(ctx context.Context, j Job, model lifecycle.Model, synthetic bool, dec *json.Decoder, events io.Writer) error {
	ij := *j.Instance
	if j.Scenario.Store == scenarios.StoreMigrating {
		return errors.New("child: a fleet does not run the migrating store (its old-format seed is not in the changelog)")
	}
	out, sampler, err := startChild(j, events)
	if err != nil {
		return err
	}
	defer sampler.Close()
	topo, err := newTopology(j.Scenario, model, synthetic, j.Seed, j.StateDir)
	if err != nil {
		return fmt.Errorf("child: %w", err)
	}
	topo.instance = true
	topo.seed = uint64(ij.FleetSeed)
	topo.logRoot = ij.FleetRoot
	// The state directory outlives the process, the restores' durations
	// do not.
	defer topo.restoreLog.remove()
	in := &instance{job: ij, topo: topo, emit: out.emit, pos: map[int]int64{},
		outFrom: map[int]int64{}, outHash: map[int]uint64{}, outCount: map[int]int64{}}
	in.rec = newRecorder(j, topo, sampler, out)
	topo.after = in.rec.after
	topo.onWrite = in.written
	defer topo.closeLogs()

	if err := in.rec.sample(schema.TriggerStart); err != nil {
		return err
	}
	// Commands are read on their own goroutine: the topology stays on this
	// (locked) thread and a cancelled ctx is seen while waiting for one.
	cmds := make(chan InstanceCommand)
	go func() {
		defer close(cmds)
		for {
			var c InstanceCommand
			if err := dec.Decode(&c); err != nil {
				return // the parent closed our input: stop
			}
			select {
			case cmds <- c:
			case <-ctx.Done():
				return
			}
		}
	}()

	// The first phase's counters start at the process's start (zero), so
	// that the restores of the start are in it; its outputs at the tasks'
	// positions.
	runErr := in.start(ctx)
	in.markOutputs()
	for runErr == nil && in.rec.err == nil {
		var c InstanceCommand
		var ok bool
		select {
		case <-ctx.Done():
		case c, ok = <-cmds:
		}
		if ctx.Err() != nil || !ok || c.Stop {
			break
		}
		switch {
		case c.Tick != nil:
			runErr = in.tick(ctx, *c.Tick)
		case c.PhaseEnd:
			runErr = in.phaseEnd()
		}
	}
	interrupted := ctx.Err() != nil
	if err := in.rec.sample(schema.TriggerEnd); err != nil && runErr == nil {
		runErr = err
	}
	stopped := InstanceStopped{Stores: in.offsets()}
	topo.stop() // flushes the changelogs (closeLogs)
	sum := topo.summary(j.Model, interrupted, time.Since(in.rec.begin))
	if runErr == nil {
		runErr = errors.Join(in.rec.err, topo.logErr)
	}
	if runErr != nil {
		sum.Error = runErr.Error()
	}
	if err := out.emit(Event{Stopped: &stopped}); err != nil {
		return err
	}
	if err := out.emit(Event{Summary: &sum}); err != nil {
		return err
	}
	return runErr
}

// start loads the owned tasks' changelogs and opens their stores.
func (in *instance) start(ctx context.Context) error {
	t := in.topo
	begin := time.Now()
	var ready InstanceReady
	lost0, err0 := t.lost, t.taskErrors
	tasks := append([]int(nil), in.job.Tasks...)
	sort.Ints(tasks)
	for _, k := range tasks {
		if k < 0 || k >= len(t.tasks) {
			return fmt.Errorf("child: task %d is not in the scenario (%d tasks)", k, len(t.tasks))
		}
		tk := t.tasks[k]
		in.owned = append(in.owned, tk)
		in.pos[k] = in.job.Positions[k]
		t.streamTime = in.pos[k] * t.sc.StepMs
		gen, held := heldGen(filepath.Join(t.root, fmt.Sprintf("task-%d", k)))
		for _, s := range tk.stores {
			s.gen = gen
			n, err := changelog.Count(changelog.Path(in.job.FleetRoot, k, s.idx))
			if err != nil {
				return fmt.Errorf("child: %w", err)
			}
			s.offset = n
			if err := t.openLog(s); err != nil {
				return fmt.Errorf("child: %w", err)
			}
		}
		for _, s := range tk.stores {
			if ctx.Err() != nil {
				return nil
			}
			ready.Stores = append(ready.Stores, in.openStore(s, held))
		}
		t.after()
	}
	ready.Lost, ready.TaskErrors, ready.Verified = t.lost-lost0, t.taskErrors-err0, t.verified
	ready.OpenNs = int64(time.Since(begin))
	return in.emit(Event{Ready: &ready})
}

// openStore opens one store of an owned task: over the instance's own state
// when it holds the task, else restored from the changelog.
func (in *instance) openStore(s *slot, held bool) StoreOpen {
	t := in.topo
	so := StoreOpen{Task: s.task, Store: s.idx, ChangelogEnd: s.offset}
	restores := t.restoreLog.count()
	errs := t.taskErrors
	switch {
	case held:
		t.open(s)
		so.How = StoreReopened
		if t.restoreLog.count() > restores {
			so.How = StoreRestored // unclean status (wiped) or stale (caught up in full)
		}
		if s.store != nil && so.How == StoreReopened {
			so.Committed, so.HasCommitted = committedOffset(s.store, t.changelogKey(s))
			if !so.HasCommitted || so.Committed < s.offset {
				t.catchUp(s)
				t.verify(s)
				so.How = StoreCaughtUp
			}
		}
	case s.offset > 0:
		t.restore(s, false)
		so.How = StoreRestored
	default:
		t.open(s)
		so.How = StoreNew
	}
	if t.taskErrors > errs && len(t.taskErrorEx) > 0 {
		so.Error = t.taskErrorEx[len(t.taskErrorEx)-1]
	}
	return so
}

// heldGen finds the directory generation of a task's state the instance
// holds (the highest gen-N under dir); held is false when it holds none.
func heldGen(dir string) (gen int, held bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), "gen-")
		if !ok || !e.IsDir() {
			continue
		}
		if g, err := strconv.Atoi(n); err == nil && (!held || g > gen) {
			gen, held = g, true
		}
	}
	return gen, held
}

// committedOffset reads the changelog offset a store has committed: a key-value
// store's from its offsets CF; a window store's the highest of its segments'.
func committedOffset(st slotStore, key string) (int64, bool) {
	switch s := st.(type) {
	case kvSlot:
		off, ok, err := s.s.Offset(key)
		return off, ok && err == nil
	case windowSlot:
		var best int64
		found := false
		for _, seg := range s.w.Segments() {
			if off, ok, err := seg.Offset(key); err == nil && ok && (!found || off > best) {
				best, found = off, true
			}
		}
		return best, found
	}
	return 0, false
}

// written is the topology's onWrite (the topology has appended the record
// to the changelog): the store's answer when the record is read back right
// away goes to the task's outputs.
func (in *instance) written(s *slot, r changelog.Record) {
	var got []byte
	if s.store != nil {
		if v, err := s.store.read(r); err == nil {
			got = v
		}
	}
	in.outHash[s.task] = outputHash(in.outHash[s.task], s.idx, in.topo.logKey(r.Key, r.Ts), got)
	in.outCount[s.task]++
}

// tick processes each owned task up to c.Until, at most c.Budget steps each;
// each step commits the stores, then the changelog.
func (in *instance) tick(ctx context.Context, c TickCommand) error {
	t := in.topo
	begin := time.Now()
	var steps int64
	for _, tk := range in.owned {
		for n := 0; n < c.Budget && in.pos[tk.id] < c.Until; n++ {
			prev := in.pos[tk.id] * t.sc.StepMs
			t.streamTime = prev + t.sc.StepMs
			t.steps++
			if !t.stepTask(ctx, tk, prev) { // commits the stores, then their changelogs
				return nil
			}
			if t.logErr != nil {
				return t.logErr
			}
			in.pos[tk.id]++
			steps++
			if t.sc.RebalanceEverySteps > 0 && in.pos[tk.id]%int64(t.sc.RebalanceEverySteps) == 0 &&
				float64(workload.SplitMix64(t.seed^uint64(tk.id)<<32^uint64(in.pos[tk.id]))%1000)/1000 < t.sc.RebalanceTasks {
				t.rebalances++
				if !t.reopenTask(ctx, tk) {
					return nil
				}
			}
		}
	}
	pos := make(map[int]int64, len(in.pos))
	for k, p := range in.pos {
		pos[k] = p
	}
	return in.emit(Event{Tick: &InstanceTick{Positions: pos, Steps: steps, BusyNs: int64(time.Since(begin))}})
}

// markPhase starts a phase: counters and outputs from here.
func (in *instance) markPhase() {
	t := in.topo
	in.mark = t.summary("", false, 0)
	in.markRest, in.markRecs, in.markRLC = t.restoreLog.count(), t.restored, t.restoreLifecycles
	in.markOutputs()
}

// markOutputs starts the outputs of a phase at the tasks' positions.
func (in *instance) markOutputs() {
	for _, tk := range in.owned {
		in.outFrom[tk.id] = in.pos[tk.id]
		in.outHash[tk.id], in.outCount[tk.id] = 0, 0
	}
}

// phaseEnd reports the phase and starts the next.
func (in *instance) phaseEnd() error {
	t := in.topo
	cur := t.summary(in.rec.model, false, time.Since(in.rec.begin))
	m := in.mark
	d := cur
	d.Steps -= m.Steps
	d.Lifecycles -= m.Lifecycles
	d.FailedCloses -= m.FailedCloses
	d.InitFailures -= m.InitFailures
	d.Records -= m.Records
	d.Rebalances -= m.Rebalances
	d.TaskErrors -= m.TaskErrors
	d.RecordsLost -= m.RecordsLost
	d.Verified -= m.Verified
	durations, err := t.restoreLog.since(in.markRest)
	if err != nil {
		return err
	}
	d.Restore = restoreStats(durations, t.restored-in.markRecs)
	d.Restore.SegmentLifecycles = t.restoreLifecycles - in.markRLC
	pe := InstancePhaseEnd{Summary: d}
	for _, tk := range in.owned {
		pe.Outputs = append(pe.Outputs, TaskOutput{Task: tk.id, From: in.outFrom[tk.id], To: in.pos[tk.id],
			Hash: in.outHash[tk.id], Records: in.outCount[tk.id]})
	}
	in.markPhase()
	return in.emit(Event{PhaseEnd: &pe})
}

// offsets reads each open store's committed changelog offset.
func (in *instance) offsets() []StoreOpen {
	var out []StoreOpen
	for _, tk := range in.owned {
		for _, s := range tk.stores {
			so := StoreOpen{Task: s.task, Store: s.idx, ChangelogEnd: s.offset}
			if s.store != nil {
				so.Committed, so.HasCommitted = committedOffset(s.store, in.topo.changelogKey(s))
			}
			out = append(out, so)
		}
	}
	return out
}
