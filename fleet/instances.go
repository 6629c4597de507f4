package fleet

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

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
