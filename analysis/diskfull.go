package analysis

import (
	"time"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// Handler is the StreamsUncaughtExceptionHandler response the disk-full cost
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

// DiskFullCost is what a full state disk costs a Kafka Streams client under
// one handler: the failed opens when the fault strikes (one per task at the
// first minute, then under ReplaceThread one per task per interval), those
// after the first (retries, per minute), and the native heap they leave
// behind per minute.
type DiskFullCost struct {
	Handler         Handler
	FirstOpens      int64   // failed opens when the fault strikes: one per task
	RetriesPerMin   float64 // failed opens per minute after that
	GrowthPerMin    float64 // bytes per minute: RetriesPerMin × per-retry leak
	ClientStops     bool    // the client shuts down (ShutdownClient)
	FirstOpensBytes float64 // FirstOpens × per-retry leak, bytes, once
}

// DiskFullCostOf is DiskFullCost under h for tasks tasks, a per-retry leak
// of perRetry bytes and ReplaceThread's interval between retries.
func DiskFullCostOf(h Handler, tasks int, perRetry float64, interval time.Duration) DiskFullCost {
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

// DiskFullPerRetry is the native heap's growth per failed open of a
// disk-full run, with its 95% interval: the native heap's fit by the
// estimator of every native-heap slope of a run (stats.FitSignal with
// OptionsFor(SignalNativeHeap), as FitSamples: warm-up cut, the calibrated
// interval) with the failed opens (Sample.InitFailures) in place of the
// lifecycles, over the samples taken after each failed open. It reads the
// code's native heap (Memory.CodeNativeHeap: a JVM child's own mallocs left
// out, as every native-heap fit leaves them out).
func DiskFullPerRetry(samples []schema.Sample) (stats.Estimate, error) {
	var in stats.Input
	for _, s := range samples {
		if s.Trigger != schema.TriggerLifecycle {
			continue
		}
		in.Y = append(in.Y, float64(s.CodeNativeHeap()))
		in.Lifecycles = append(in.Lifecycles, float64(s.InitFailures))
		in.FailedCloses = append(in.FailedCloses, 0)
		in.Records = append(in.Records, float64(s.Records))
	}
	f, err := stats.FitSignal(in, OptionsFor(SignalNativeHeap))
	if err != nil {
		return stats.Estimate{}, err
	}
	return f.PerLifecycle, nil
}
