package goengine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/workload"
)

// runDiskFull is the child's side: Attempts opens of the scenario's first
// store (a window store also writes its first record, which creates a
// segment), each on a full state directory, a sample after each.
func runDiskFull(ctx context.Context, j harness.Job, model lifecycle.Model, synthetic bool, events io.Writer) error {
	defer os.RemoveAll(j.StateDir)
	out, sampler, err := startChild(j, events)
	if err != nil {
		return err
	}
	defer sampler.Close()
	// Full from here on: what startChild needed (RocksDB's version probe) is done.
	if err := fill(j.StateDir); err != nil {
		return err
	}
	topo, err := newTopology(j.Scenario, model, synthetic, j.Seed, j.StateDir)
	if err != nil {
		return fmt.Errorf("child: %w", err)
	}
	topo.useLogDir(j.ChangelogDir)
	rec := newRecorder(j, topo, sampler, out)
	if err := rec.sample(schema.TriggerStart); err != nil {
		return err
	}
	for i := 0; i < j.DiskFull.Attempts && ctx.Err() == nil; i++ {
		s := topo.tasks[i%len(topo.tasks)].stores[0]
		err := topo.tryOpen(s, 0)
		if err == nil {
			r := changelog.Record{Key: workload.Key(0), Ts: 0, Ver: 1}
			err = s.store.put(r, topo.value(s, r))
			topo.closeSlot(s)
		}
		if err != nil {
			topo.taskError(s, err)
		}
		if err := rec.sample(schema.TriggerLifecycle); err != nil {
			return err
		}
	}
	if err := rec.sample(schema.TriggerEnd); err != nil {
		return err
	}
	topo.Stop()
	sum := topo.Summary(j.Model, ctx.Err() != nil, time.Since(rec.begin))
	return out.Emit(harness.Event{Summary: &sum})
}

// fill writes a file in dir until the file system is full.
func fill(dir string) error {
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return fmt.Errorf("filling %s: %w", dir, err)
		}
	}
}
