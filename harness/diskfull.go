package harness

import (
	"context"
	"os"
	"time"

	"github.com/rocksleak/rocksleak/schema"
)

// Handler is the StreamsUncaughtExceptionHandler response a disk-full run
// models (org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.
// StreamThreadExceptionResponse).
type Handler string

// The handlers. What Kafka Streams 4.3 does when a store's open fails with an
// I/O error (read from kafka-streams-4.3.0-sources.jar; docs/faults.md):
// RocksDBStore.openDB throws ProcessorStateException("Error opening store
// ..."), a StreamsException; TaskManager.addTaskToStateUpdater retries only a
// LockException or a TimeoutException (TaskManager.BackoffRecord:
// ExponentialBackoff(1000, 2, 10000, 0.5), and task.timeout.ms for the
// latter), so the exception leaves StreamThread.run() and goes to the
// handler (a failed segment open while processing goes there too, through
// TaskExecutor).
const (
	// ShutdownClient is the default (KafkaStreams: no handler set, or one
	// answering SHUTDOWN_CLIENT): closeToError(), the client stops. One
	// failed open per task the thread held, then no retry.
	ShutdownClient Handler = "shutdown-client"
	// ReplaceThread (KafkaStreams.replaceStreamThread): the dead thread shuts
	// down without leaving the group (REMAIN_IN_GROUP), closing its tasks
	// dirty, and addStreamThread() starts a new one, which rejoins, is given
	// the tasks again and opens their stores again: one retry per task per
	// rebalance, for as long as the fault lasts.
	ReplaceThread Handler = "replace-thread"
)

// DefaultReplaceInterval is the modelled time between two retries under
// ReplaceThread: the consumer's session.timeout.ms default (45 s, Kafka ≥
// 3.0). The dead thread's member does not leave the group, so the rebalance
// its replacement's JoinGroup starts completes when the coordinator expires
// that member. An assumption from the code, not measured against a broker
// here (docs/faults.md).
const DefaultReplaceInterval = 45 * time.Second

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
	// PerRetry is the least-squares slope of the native heap over the failed
	// opens (after the first tenth), bytes per retry; the command's table
	// fits Samples again with an interval (stats.FitSignal).
	PerRetry float64
	// Samples are the child's, one after each failed open
	// (Sample.InitFailures counts them).
	Samples []schema.Sample
	// Growth is the native heap's change from the first to the last sample.
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
		r.Growth = mr.Samples[n-1].NativeHeap - mr.Samples[0].NativeHeap
		var xs, ys []float64
		for _, s := range mr.Samples[n/10:] {
			if s.Trigger == schema.TriggerLifecycle {
				xs, ys = append(xs, float64(s.InitFailures)), append(ys, float64(s.NativeHeap))
			}
		}
		r.PerRetry = slope(xs, ys)
	}
	return r
}

// slope is the least-squares slope of ys on xs; 0 with fewer than two points.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// DiskFullCost is what a full state disk costs a Kafka Streams client under
// one handler, from a model's measured per-retry leak: failed opens in the
// first minute (one per task at the fault, then under ReplaceThread one per
// task per interval), those after the first (retries, per minute), and the
// native heap they leave behind per minute.
type DiskFullCost struct {
	Handler         Handler
	FirstOpens      int64   // failed opens when the fault strikes: one per task
	RetriesPerMin   float64 // failed opens per minute after that
	GrowthPerMin    float64 // bytes per minute: RetriesPerMin × per-retry leak
	ClientStops     bool    // the client shuts down (ShutdownClient)
	FirstOpensBytes float64 // FirstOpens × per-retry leak, bytes, once
}

// CostOf is DiskFullCost under h for tasks tasks, a per-retry leak of
// perRetry bytes and ReplaceThread's interval between retries.
func CostOf(h Handler, tasks int, perRetry float64, interval time.Duration) DiskFullCost {
	c := DiskFullCost{Handler: h, FirstOpens: int64(tasks), FirstOpensBytes: float64(tasks) * perRetry}
	switch h {
	case ShutdownClient:
		c.ClientStops = true
	case ReplaceThread:
		c.RetriesPerMin = float64(tasks) * float64(time.Minute) / float64(interval)
		c.GrowthPerMin = c.RetriesPerMin * perRetry
	}
	return c
}
