package harness

import (
	"context"
	"os"

	"github.com/rocksleak/rocksleak/schema"
)

// DiskFullJob makes a child retry its stores' opens on a state directory that
// is full (see RunDiskFull).
type DiskFullJob struct {
	Attempts int `json:"attempts"`
}

// DiskFullConfig is one disk-full run.
type DiskFullConfig struct {
	Config
	// Attempts is the number of failed opens each model's child makes.
	Attempts int
	// FSBytes is the size of the tmpfs mounted for the state; default 1 MiB.
	FSBytes int64
}

// DiskFullRun is one model's outcome.
type DiskFullRun struct {
	Model      string
	Attempts   int64  // failed opens (init failures) the child made
	FirstError string // the first, as RocksDB gave it
	// Samples are the child's, one after each failed open
	// (Sample.InitFailures counts them).
	Samples []schema.Sample
	// Growth is the native heap's change from the first to the last sample
	// (the code's: a JVM child's own mallocs left out).
	Growth int64
	// LiveOptions is the count of live options objects at the end (ledger).
	LiveOptions int64
	Error       string
}

// RunDiskFull mounts a tmpfs of its own (root, or CAP_SYS_ADMIN; otherwise
// the error wraps ErrNoMount) and runs each model in a child that fills it
// until the kernel answers ENOSPC and then opens the scenario's store there Attempts
// times, as a task's re-initialisation after each ReplaceThread does: every
// open fails with RocksDB's "IO error: No space left on device". The
// filesystem is unmounted at the end.
func RunDiskFull(ctx context.Context, cfg DiskFullConfig) ([]DiskFullRun, error) {
	if cfg.FSBytes == 0 {
		cfg.FSBytes = 1 << 20
	}
	fs, err := MountSmallFS(os.TempDir(), cfg.FSBytes, false)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	cfg.StateRoot = fs.Dir
	// The child spins on purpose: it makes only failed opens.
	cfg.Progress = Progress{NoLifecycleFor: -1, MaxErrorsPerLifecycle: -1}
	if err := fillDefaults(&cfg.Config); err != nil {
		return nil, err
	}
	var out []DiskFullRun
	for _, r := range parseRuns(cfg.Models) {
		if ctx.Err() != nil {
			break
		}
		c := cfg.Config
		c.diskFull = &DiskFullJob{Attempts: cfg.Attempts}
		out = append(out, diskFullRun(runChild(ctx, c, r)))
	}
	return out, ctx.Err()
}

func diskFullRun(mr *schema.ModelRun) DiskFullRun {
	r := DiskFullRun{Model: mr.Model, Error: mr.Error, Samples: mr.Samples}
	if mr.Summary != nil {
		r.Attempts = mr.Summary.InitFailures
		if len(mr.Summary.TaskErrorList) > 0 {
			r.FirstError = mr.Summary.TaskErrorList[0]
		}
		r.LiveOptions = mr.Summary.LedgerAtEnd["options"]
	}
	if n := len(mr.Samples); n > 1 {
		r.Growth = mr.Samples[n-1].CodeNativeHeap() - mr.Samples[0].CodeNativeHeap()
	}
	return r
}
