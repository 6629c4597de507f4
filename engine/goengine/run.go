package goengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/workload"
)

// RunChild is the child process's whole job: it reads a Job (JSON) from job,
// runs the model's topology until the scenario's stop condition or until ctx
// is cancelled, and writes Events as JSON lines to events: its info, a sample
// before anything is opened, samples as it goes (after lifecycles and on a
// timer), a sample at the end, and a schema.Summary. On cancellation it closes what
// the model would close, removes its state directory and still writes a
// schema.Summary, marked interrupted.
func RunChild(ctx context.Context, job io.Reader, events io.Writer) error {
	// The topology runs on one OS thread, as a Kafka Streams StreamThread
	// calls RocksDB from one thread: every store operation then allocates
	// from the same glibc arena instead of whichever thread Go picked.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var j harness.Job
	dec := json.NewDecoder(job)
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("child: reading job: %w", err)
	}
	model, synthetic, err := resolve(j)
	if err != nil {
		return err
	}
	if j.DiskFull != nil {
		return runDiskFull(ctx, j, model, synthetic, events)
	}
	defer os.RemoveAll(j.StateDir)
	out, sampler, err := startChild(j, events)
	if err != nil {
		return err
	}
	defer sampler.Close()

	topo, err := newTopology(j.Scenario, model, synthetic, j.Seed, j.StateDir)
	if err != nil {
		return fmt.Errorf("child: %w", err)
	}
	topo.useLogDir(j.ChangelogDir)
	rec := newRecorder(j, topo, sampler, out)
	topo.after = rec.after
	topo.tell = func(e schema.TaskErrorEvent) { rec.err = errors.Join(rec.err, out.Emit(harness.Event{TaskError: &e})) }
	if j.Profile != nil {
		runtime.MemProfileRate = harness.GoMemProfileRate
		rec.prof = harness.NewProfiler(*j.Profile, rec.begin, func() (int64, error) {
			m, err := sampler.Read()
			return m.NativeHeap, err
		})
	}

	if err := rec.sample(schema.TriggerStart); err != nil {
		return err
	}
	stop, stoppedEarly, release := stopCondition(j, topo, rec)
	defer release()
	var runErr error
	if j.Ops == workload.OpsVersion {
		// The schedule's op stream follows the job (the bytes the decoder
		// has already read, then the rest of the input).
		runErr = topo.runSchedule(ctx, workload.NewReader(io.MultiReader(dec.Buffered(), job)), stop,
			func() bool { return rec.err != nil })
	} else {
		runErr = topo.start(ctx)
		for runErr == nil && rec.err == nil && topo.logErr == nil && ctx.Err() == nil && !stop() {
			topo.step(ctx)
		}
	}
	return finish(ctx, j, topo, rec, sampler, out, runErr, *stoppedEarly)
}

// stopCondition is the run's stop: the scenario's stop condition (its
// lifecycles or its duration) or the parent's settled signal
// (harness.StopSignal), which also sets *early. release stops listening for
// the signal.
func stopCondition(j harness.Job, topo *Topology, rec *recorder) (stop func() bool, early *bool, release func()) {
	settled := make(chan os.Signal, 1)
	signal.Notify(settled, harness.StopSignal)
	stoppedEarly := false
	limitLC := int64(j.Scenario.Lifecycles)
	limitDur := time.Duration(j.Scenario.Duration)
	stop = func() bool {
		if limitLC > 0 && topo.env.Counts().Lifecycles.Load() >= limitLC {
			return true
		}
		if limitDur > 0 && time.Since(rec.begin) >= limitDur {
			return true
		}
		select {
		case <-settled:
			stoppedEarly = true
		default:
		}
		return stoppedEarly
	}
	return stop, &stoppedEarly, func() { signal.Stop(settled) }
}

// finish ends a run whose loop ended with runErr: the end sample, the last
// heap dump and the retention probe unless interrupted, the stores closed,
// and the summary sent; it returns the run's first error.
func finish(ctx context.Context, j harness.Job, topo *Topology, rec *recorder, sampler *measure.Sampler,
	out *harness.EventWriter, runErr error, stoppedEarly bool) error {
	interrupted := ctx.Err() != nil
	if err := rec.sample(schema.TriggerEnd); err != nil && runErr == nil {
		runErr = err
	}
	if rec.prof != nil && !interrupted {
		c := topo.env.Counts()
		if err := rec.prof.End(c.Lifecycles.Load(), c.FailedCloses.Load()); err != nil && runErr == nil {
			runErr = err
		}
	}
	var retention *schema.Retention
	if !interrupted {
		retention = harness.ProbeRetention(sampler, topo.env.Counts().Lifecycles.Load())
	}
	topo.Stop()
	sum := topo.Summary(j.Model, interrupted, time.Since(rec.begin))
	sum.StoppedEarly = stoppedEarly
	sum.Retention = retention
	if runErr == nil {
		runErr = errors.Join(rec.err, topo.logErr)
	}
	if runErr != nil {
		sum.Error = runErr.Error()
	}
	if err := out.Emit(harness.Event{Summary: &sum}); err != nil {
		return err
	}
	return runErr
}

// resolve checks the job a child read and finds its model (the job's
// RunName, parsed by the parent): the ownership model and whether it is a
// "+synthetic" run.
func resolve(j harness.Job) (model lifecycle.Model, synthetic bool, err error) {
	if j.RunName.Model == "" {
		return model, false, fmt.Errorf("child: job %q has no base_model (its run name, parsed)", j.Model)
	}
	if model, err = lifecycle.ModelByName(j.RunName.Model); err != nil {
		return model, false, fmt.Errorf("child: %w", err)
	}
	if j.StateDir == "" {
		return model, false, errors.New("child: job has no state_dir")
	}
	return model, j.Synthetic, nil
}

// Child is one child process's run of a job for a driver other than
// RunChild's loop (package fleet's instances): the job's topology, whose
// state directory outlives the process, its samples and the events it
// writes to its parent.
type Child struct {
	Topo    *Topology
	out     *harness.EventWriter
	sampler *measure.Sampler
	rec     *recorder
}

// StartChild starts the run of job j (read by the caller from its standard
// input): it makes the state directory, emits the child's Info, and builds
// the topology, its changelogs under j.ChangelogDir (else the state
// directory), sampled at the scenario's rules (after every task's commit and
// every reopen). The caller hooks the topology (Topology.Hook), drives it and
// closes the Child.
func StartChild(j harness.Job, events io.Writer) (*Child, error) {
	model, synthetic, err := resolve(j)
	if err != nil {
		return nil, err
	}
	out, sampler, err := startChild(j, events)
	if err != nil {
		return nil, err
	}
	topo, err := newTopology(j.Scenario, model, synthetic, j.Seed, j.StateDir)
	if err != nil {
		sampler.Close()
		return nil, fmt.Errorf("child: %w", err)
	}
	topo.useLogDir(j.ChangelogDir)
	c := &Child{Topo: topo, out: out, sampler: sampler}
	c.rec = newRecorder(j, topo, sampler, out)
	topo.after = c.rec.after
	return c, nil
}

// Emit writes one event (a JSON value) to the parent.
func (c *Child) Emit(e any) error { return c.out.Encode(e) }

// Sample takes a sample now, with trigger (a schema.Trigger* value).
func (c *Child) Sample(trigger string) error { return c.rec.sample(trigger) }

// SampleErr is the first failure to take or send a sample; nil while none.
func (c *Child) SampleErr() error { return c.rec.err }

// Err is every failure of the instrument so far: the samples' and the
// changelog files'.
func (c *Child) Err() error { return errors.Join(c.rec.err, c.Topo.logErr) }

// Elapsed is the wall time since the child started its run.
func (c *Child) Elapsed() time.Duration { return time.Since(c.rec.begin) }

// Close flushes the changelogs and removes what the run kept that is not
// state (its restores' durations); the state directory stays.
func (c *Child) Close() {
	c.Topo.closeLogs()
	c.Topo.restoreLog.remove()
	c.sampler.Close()
}

// startChild makes the job's state directory, opens the sampler and emits
// the child's Info (PID, RocksDB's version, allocator): the start every child
// shares. The caller closes the sampler; out writes the events to events.
func startChild(j harness.Job, events io.Writer) (out *harness.EventWriter, sampler *measure.Sampler, err error) {
	if err := os.MkdirAll(j.StateDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("child: %w", err)
	}
	out = harness.NewEventWriter(events)
	if sampler, err = measure.NewSampler(); err != nil {
		return nil, nil, fmt.Errorf("child: %w", err)
	}
	// The version probe opens a DB of its own: in the harness's directory
	// (the changelogs'), not the state directory under test, when there is one.
	probeDir := j.StateDir
	if j.ChangelogDir != "" {
		probeDir = j.ChangelogDir
	}
	version, err := lifecycle.RocksDBVersion(probeDir)
	if err == nil {
		err = out.Emit(harness.Event{Info: &schema.ChildInfo{PID: os.Getpid(), RocksDBVersion: version, Allocator: sampler.Allocator()}})
	} else {
		err = fmt.Errorf("child: reading RocksDB's version: %w", err)
	}
	if err != nil {
		sampler.Close()
		return nil, nil, err
	}
	return out, sampler, nil
}

// newRecorder is the recorder of job j's samples, at the scenario's sampling
// rules; it starts its clock now.
func newRecorder(j harness.Job, topo *Topology, sampler *measure.Sampler, out *harness.EventWriter) *recorder {
	return &recorder{topo: topo, sampler: sampler, out: out, model: j.Model, begin: time.Now(),
		every:    int64(max(j.Scenario.SampleEveryLifecycles, 1)),
		interval: time.Duration(max(j.Scenario.SampleIntervalMs, 1)) * time.Millisecond}
}

// recorder takes the samples: after every SampleEveryLifecycles lifecycles and
// whenever the timer period has passed since the last sample.
type recorder struct {
	topo     *Topology
	sampler  *measure.Sampler
	out      *harness.EventWriter
	model    string
	begin    time.Time
	every    int64
	interval time.Duration
	prof     *harness.Profiler // nil unless the job asks for heap dumps

	seq      int
	lastLC   int64
	lastTime time.Time
	err      error
	rocksdb  rocksdbFigures
	live     map[string]int64 // the samples' LiveNatives, reused (see liveNatives)
}

func (r *recorder) after() {
	lc := r.topo.env.Counts().Lifecycles.Load()
	switch {
	case lc-r.lastLC >= r.every:
		r.err = errors.Join(r.err, r.sample(schema.TriggerLifecycle))
	case time.Since(r.lastTime) >= r.interval:
		r.err = errors.Join(r.err, r.sample(schema.TriggerTimer))
	}
	if r.prof != nil {
		r.err = errors.Join(r.err, r.prof.After(lc, r.topo.env.Counts().FailedCloses.Load()))
	}
}

func (r *recorder) sample(trigger string) error {
	mem, err := r.sampler.Read()
	if err != nil {
		return fmt.Errorf("sampling: %w", err)
	}
	c := r.topo.env.Counts()
	s := schema.Sample{
		Model: r.model, Seq: r.seq, ElapsedNs: int64(time.Since(r.begin)), Trigger: trigger,
		Lifecycles: c.Lifecycles.Load(), FailedCloses: c.FailedCloses.Load(),
		InitFailures: c.InitFailures.Load(), TaskErrors: r.topo.taskErrors, Records: r.topo.records,
		Restores: r.topo.restoreLog.count(), RestoredRecords: r.topo.restored,
		Memory: mem, LiveNatives: r.liveNatives(),
	}
	if trigger == schema.TriggerEnd {
		s.RocksDB = r.rocksdb.all(r.topo.env) // once per run: see RocksDBFiguresDBsPerSample
	} else {
		s.RocksDB = r.rocksdb.take(r.topo.env) // a round-robin: see RocksDBFiguresDBsPerSample
	}
	r.seq++
	if trigger != schema.TriggerTimer {
		// Timer samples do not count toward the lifecycle cadence: the fits
		// use the other samples only (see results.FitSamples).
		r.lastLC = s.Lifecycles
	}
	r.lastTime = time.Now()
	return r.out.WriteSample(&s)
}

// liveNatives returns the ledger's live counts by kind in the recorder's
// reused map: valid until the next sample.
func (r *recorder) liveNatives() map[string]int64 {
	if r.live == nil {
		r.live = make(map[string]int64, len(lifecycle.Kinds()))
	}
	clear(r.live)
	return kindMapInto(r.live, r.topo.env.Ledger.Live())
}

// kindMap returns m keyed by the kinds' names, in a new map.
func kindMap(m map[lifecycle.Kind]int64) map[string]int64 {
	return kindMapInto(make(map[string]int64, len(m)), m)
}

// kindMapInto adds m, keyed by the kinds' names, to dst and returns dst.
func kindMapInto(dst map[string]int64, m map[lifecycle.Kind]int64) map[string]int64 {
	for k, v := range m {
		dst[string(k)] = v
	}
	return dst
}

// Summary is the run's counters so far, as the child's last event reports
// them: model names the run, elapsed its wall time.
func (t *Topology) Summary(model string, interrupted bool, elapsed time.Duration) schema.Summary {
	c := t.env.Counts()
	return schema.Summary{
		Model: model, Interrupted: interrupted, Steps: t.steps,
		Lifecycles: c.Lifecycles.Load(), FailedCloses: c.FailedCloses.Load(), InitFailures: c.InitFailures.Load(),
		Records: t.records, Rebalances: t.rebalances,
		TaskErrors: t.taskErrors, TaskErrorList: t.taskErrorEx.List, TaskErrorCounts: t.taskErrorEx.Counts,
		RecordsLost: t.lost, RecordsUnavailable: t.unavailable, RecordsWriteFailed: t.writeFailed, Verified: t.verified,
		Restore:   t.restoreStats(),
		PinnedDBs: c.Pinned.Load(), LedgerAtEnd: kindMap(t.env.Ledger.Live()), StorageFaults: t.storageFaultCounts(),
		ReleasedLate: kindMap(t.env.Ledger.ReleasedLate()), ElapsedNs: int64(elapsed),
	}
}

// storageFaultCounts is a copy of the storage faults counted so far, nil when none.
func (t *Topology) storageFaultCounts() schema.StorageFaultTally {
	if len(t.storageFaults) == 0 {
		return nil
	}
	out := make(schema.StorageFaultTally, len(t.storageFaults))
	for k, v := range t.storageFaults {
		out[k] = v
	}
	return out
}
