package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"time"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/workload"
)

// InstanceArg is the argument a fleet instance's child is started with (the
// binary's entry point calls RunInstance for it; goengine.RunChild's children
// get "__child").
const InstanceArg = "__instance"

// Job is what the parent hands an instance's child, as the first line of its
// standard input: harness's job (scenario, model, seed, state directory)
// and the instance's part.
type Job struct {
	harness.Job
	Instance *InstanceJob `json:"instance,omitempty"`
}

// Event is one JSON line an instance's child streams to the parent: one of
// harness's events (info, sample, summary) or one of the instance's
// reports. Exactly one field is set.
type Event struct {
	harness.Event
	Ready    *InstanceReady    `json:"ready,omitempty"`
	Tick     *InstanceTick     `json:"tick,omitempty"`
	PhaseEnd *InstancePhaseEnd `json:"phase_end,omitempty"`
	Stopped  *InstanceStopped  `json:"stopped,omitempty"`
}

// RunInstance is an instance child's whole job, as goengine.RunChild is a
// model child's: it reads a Job (JSON) from in, opens its stores (Ready),
// then runs the commands that follow the job on in until a Stop, the end of
// in or ctx's cancellation, writing Events as JSON lines to events; it ends
// with the committed offsets (Stopped) and a schema.Summary. Its state
// directory outlives it.
func RunInstance(ctx context.Context, in io.Reader, events io.Writer) error {
	// The topology runs on one OS thread, as in goengine.RunChild.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var j Job
	dec := json.NewDecoder(in)
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("child: reading job: %w", err)
	}
	if j.Instance == nil {
		return errors.New("child: job has no instance")
	}
	return runInstance(ctx, j, dec, events)
}

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
	Stores []goengine.StoreOpen `json:"stores"`
	// Lost counts changelog records the opened stores did not hold (the
	// topology's verify); TaskErrors the errors while opening.
	Lost       int64 `json:"lost"`
	Verified   int64 `json:"verified"`
	TaskErrors int64 `json:"task_errors"`
	OpenNs     int64 `json:"open_ns"` // wall time to open every store
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
	Stores []goengine.StoreOpen `json:"stores"`
}

// instance is the child side of a fleet instance.
type instance struct {
	job     InstanceJob
	records records // the fleet's input; its scenario is the job's
	c       *goengine.Child
	topo    *goengine.Topology
	model   string
	pos     map[int]int64
	owned   []int // the tasks, in order

	// The phase's marks: counters at its start, outputs since.
	mark     schema.Summary
	markRest goengine.RestoreMark
	outFrom  map[int]int64
	outHash  map[int]uint64
	outCount map[int]int64
}

// runInstance is RunInstance once the job is read: dec has read the job and
// reads the commands next.
func runInstance(ctx context.Context, j Job, dec *json.Decoder, events io.Writer) error {
	ij := *j.Instance
	if j.Scenario.Store == scenarios.StoreMigrating {
		return errors.New("child: a fleet does not run the migrating store (its old-format seed is not in the changelog)")
	}
	// The changelogs are the fleet's, under its root.
	j.ChangelogDir = ij.FleetRoot
	c, err := goengine.StartChild(j.Job, events)
	if err != nil {
		return err
	}
	// The state directory outlives the process, the restores' durations
	// do not (Close).
	defer c.Close()
	topo := c.Topo
	in := &instance{job: ij, c: c, topo: topo, model: j.Model, pos: map[int]int64{},
		outFrom: map[int]int64{}, outHash: map[int]uint64{}, outCount: map[int]int64{}}
	in.records = records{sc: j.Scenario, seed: uint64(ij.FleetSeed)}
	topo.Hook(in.records.hooks(in.written))

	if err := c.Sample(schema.TriggerStart); err != nil {
		return err
	}
	// Commands are read on their own goroutine: the topology stays on this
	// (locked) thread and a cancelled ctx is seen while waiting for one.
	runErr := in.serve(ctx, readCommands(ctx, dec))
	interrupted := ctx.Err() != nil
	if err := c.Sample(schema.TriggerEnd); err != nil && runErr == nil {
		runErr = err
	}
	stopped := InstanceStopped{Stores: topo.CommittedOffsets(in.owned)}
	topo.Stop() // flushes the changelogs
	sum := topo.Summary(j.Model, interrupted, c.Elapsed())
	if runErr == nil {
		runErr = c.Err()
	}
	if runErr != nil {
		sum.Error = runErr.Error()
	}
	if err := c.Emit(Event{Stopped: &stopped}); err != nil {
		return err
	}
	if err := c.Emit(Event{Event: harness.Event{Summary: &sum}}); err != nil {
		return err
	}
	return runErr
}

// readCommands decodes the parent's commands from dec on a goroutine of its
// own and sends them on the returned channel, which it closes when dec fails
// (the parent closed our input) or ctx is done.
func readCommands(ctx context.Context, dec *json.Decoder) <-chan InstanceCommand {
	cmds := make(chan InstanceCommand)
	go func() {
		defer close(cmds)
		for {
			var cmd InstanceCommand
			if err := dec.Decode(&cmd); err != nil {
				return // the parent closed our input: stop
			}
			select {
			case cmds <- cmd:
			case <-ctx.Done():
				return
			}
		}
	}()
	return cmds
}

// serve starts the owned tasks, then runs the parent's commands from cmds
// until a Stop, the end of cmds, ctx being done, an error or a failed sample.
// It returns the first error of the start or a command (nil otherwise).
func (in *instance) serve(ctx context.Context, cmds <-chan InstanceCommand) error {
	// The first phase's counters start at the process's start (zero), so
	// that the restores of the start are in it; its outputs at the tasks'
	// positions.
	runErr := in.start(ctx)
	in.markOutputs()
	for runErr == nil && in.c.SampleErr() == nil {
		var cmd InstanceCommand
		var ok bool
		select {
		case <-ctx.Done():
		case cmd, ok = <-cmds:
		}
		if ctx.Err() != nil || !ok || cmd.Stop {
			break
		}
		switch {
		case cmd.Tick != nil:
			runErr = in.tick(ctx, *cmd.Tick)
		case cmd.PhaseEnd:
			runErr = in.phaseEnd()
		}
	}
	return runErr
}

// start resumes the owned tasks at their positions and reports it.
func (in *instance) start(ctx context.Context) error {
	t := in.topo
	begin := time.Now()
	var ready InstanceReady
	lost0, err0, _ := t.Checked()
	tasks := append([]int(nil), in.job.Tasks...)
	sort.Ints(tasks)
	for _, k := range tasks {
		if k < 0 || k >= t.Tasks() {
			return fmt.Errorf("child: task %d is not in the scenario (%d tasks)", k, t.Tasks())
		}
		in.owned = append(in.owned, k)
		in.pos[k] = in.job.Positions[k]
		opens, ok, err := t.ResumeTask(ctx, k, in.pos[k])
		if err != nil {
			return err
		}
		ready.Stores = append(ready.Stores, opens...)
		if !ok {
			return nil
		}
	}
	lost, errs, verified := t.Checked()
	ready.Lost, ready.TaskErrors, ready.Verified = lost-lost0, errs-err0, verified
	ready.OpenNs = int64(time.Since(begin))
	return in.c.Emit(Event{Ready: &ready})
}

// written is the topology's onWrite (the topology has appended the record
// to the changelog): the store's answer when the record is read back right
// away goes to the task's outputs.
func (in *instance) written(id goengine.StoreID, r changelog.Record) {
	in.outHash[id.Task] = outputHash(in.outHash[id.Task], id.Store, r.Key, in.records.hashTs(r.Ts), in.topo.Read(id, r))
	in.outCount[id.Task]++
}

// tick processes each owned task up to c.Until, at most c.Budget steps each;
// each step commits the stores, then the changelog.
func (in *instance) tick(ctx context.Context, c TickCommand) error {
	t := in.topo
	begin := time.Now()
	var steps int64
	for _, k := range in.owned {
		for n := 0; n < c.Budget && in.pos[k] < c.Until; n++ {
			if !t.StepTask(ctx, k, in.pos[k]) { // commits the stores, then their changelogs
				return nil
			}
			if err := t.LogErr(); err != nil {
				return err
			}
			in.pos[k]++
			steps++
			if in.rebalances(k) && !t.RebalanceTask(ctx, k) {
				return nil
			}
		}
	}
	pos := make(map[int]int64, len(in.pos))
	for k, p := range in.pos {
		pos[k] = p
	}
	return in.c.Emit(Event{Tick: &InstanceTick{Positions: pos, Steps: steps, BusyNs: int64(time.Since(begin))}})
}

// rebalances reports whether task k moves away and back at its position:
// every RebalanceEverySteps steps, with probability RebalanceTasks, drawn
// from the fleet's seed (the same whichever instance runs the task).
func (in *instance) rebalances(k int) bool {
	sc := in.records.sc
	return sc.RebalanceEverySteps > 0 && in.pos[k]%int64(sc.RebalanceEverySteps) == 0 &&
		float64(workload.SplitMix64(uint64(in.job.FleetSeed)^uint64(k)<<32^uint64(in.pos[k]))%1000)/1000 < sc.RebalanceTasks
}

// markPhase starts a phase: counters and outputs from here.
func (in *instance) markPhase() {
	in.mark = in.topo.Summary("", false, 0)
	in.markRest = in.topo.RestoreMark()
	in.markOutputs()
}

// markOutputs starts the outputs of a phase at the tasks' positions.
func (in *instance) markOutputs() {
	for _, k := range in.owned {
		in.outFrom[k] = in.pos[k]
		in.outHash[k], in.outCount[k] = 0, 0
	}
}

// phaseEnd reports the phase and starts the next.
func (in *instance) phaseEnd() error {
	t := in.topo
	cur := t.Summary(in.model, false, in.c.Elapsed())
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
	rs, err := t.RestoresSince(in.markRest)
	if err != nil {
		return err
	}
	d.Restore = rs
	pe := InstancePhaseEnd{Summary: d}
	for _, k := range in.owned {
		pe.Outputs = append(pe.Outputs, TaskOutput{Task: k, From: in.outFrom[k], To: in.pos[k],
			Hash: in.outHash[k], Records: in.outCount[k]})
	}
	in.markPhase()
	return in.c.Emit(Event{PhaseEnd: &pe})
}
