package schema

import (
	"time"

	"github.com/rocksleak/rocksleak/spec"
)

// ChildInfo is what a child says about itself before its first lifecycle.
type ChildInfo struct {
	PID            int            `json:"pid"`
	RocksDBVersion string         `json:"rocksdb_version"` // read from the library's own LOG header
	Allocator      spec.Allocator `json:"allocator"`
}

// Summary is a model run's totals, sent once by the child at its end.
type Summary struct {
	Model       string `json:"model"`
	Interrupted bool   `json:"interrupted"`
	// StoppedEarly: the parent said the verdict was settled (--until-verdict).
	StoppedEarly bool  `json:"stopped_early"`
	Steps        int64 `json:"steps"`
	Lifecycles   int64 `json:"lifecycles"`
	FailedCloses int64 `json:"failed_closes"`
	InitFailures int64 `json:"init_failures"`
	Records      int64 `json:"records"`
	Rebalances   int64 `json:"rebalances"`
	// TaskErrors are errors that escaped a store to its task, e.g. a reopen
	// refused because a pinned DB still holds the path's LOCK.
	TaskErrors int64 `json:"task_errors"`
	// TaskErrorList holds the distinct task errors in words (at most
	// MaxTaskErrorExamples, each at most MaxTaskErrorChars: see
	// TaskErrorTally); TaskErrorCounts how many task errors had each text
	// (empty in results written before it was recorded).
	TaskErrorList   []string `json:"task_error_examples,omitempty"`
	TaskErrorCounts []int64  `json:"task_error_counts,omitempty"`
	// RecordsLost counts the records a store, once open (after its restore,
	// if any), does not hold although the changelog does: what Kafka itself
	// would lose. Not lost, and counted apart: RecordsUnavailable, the
	// changelog records of a store that could not be opened when they were
	// checked (the changelog still holds them; Kafka restores them when the
	// store opens), and RecordsWriteFailed, records whose write to the store
	// failed (Kafka does not commit their input: under exactly-once the
	// transaction aborts, under at-least-once the offsets stay behind, and the
	// record is processed again; the harness does not send it again). See
	// docs/faults.md.
	RecordsLost        int64            `json:"records_lost"`
	RecordsUnavailable int64            `json:"records_unavailable,omitempty"`
	RecordsWriteFailed int64            `json:"records_write_failed,omitempty"`
	Verified           int64            `json:"records_verified"`
	Restore            RestoreStats     `json:"restore"`
	PinnedDBs          int64            `json:"pinned_dbs"`
	LedgerAtEnd        map[string]int64 `json:"ledger_at_end"`
	ReleasedLate       map[string]int64 `json:"released_late"`
	ElapsedNs          int64            `json:"elapsed_ns"`
	Error              string           `json:"error,omitempty"` // a failure that ended the model's run early
	// App is set for an application's run (rocksleak run --app): its own counts.
	App *AppCounts `json:"app,omitempty"`
	// StorageFaults counts the errors the child met that name a storage
	// fault of the state disk (FaultENOSPC, FaultEROFS, FaultEIO: see
	// StorageFaults), by fault; empty when none (a JVM child does not count
	// them: the parent reads its examples).
	StorageFaults StorageFaultTally `json:"storage_faults,omitempty"`
	// RecordsNotMeasured, when set, says why RecordsLost and Verified were not
	// measured (they are then 0 and mean nothing): a JVM child that does not
	// read its stores back, or a child killed before its summary.
	RecordsNotMeasured string `json:"records_not_measured,omitempty"`
	// FromLastSample: the child sent no summary (it was killed); the parent
	// took the counts and the ledger from its last sample.
	FromLastSample bool `json:"summary_from_last_sample,omitempty"`
	// StateLeft names the model's state directory when the parent could not
	// remove it after the child, with the error; empty when it was removed.
	StateLeft string `json:"state_left,omitempty"`
	// Retention is the allocator-retention probe taken after the last sample (Go engine only; nil for the JVM
	// engine, fleet instances and results made before it was recorded).
	Retention *Retention `json:"retention,omitempty"`
}

// AppCounts are an application run's own counts (the JVM child's, rocksleak run --app): Kafka's punctuations
// (the tasks' punctuate-total, recorded only at metrics.recording.level DEBUG: 0 otherwise), and the RocksDB
// instances Kafka opened and closed through the config setter (a window segment counts as one; SegmentOpens those
// of segments).
type AppCounts struct {
	Punctuations      int64 `json:"punctuations"`
	StoreOpens        int64 `json:"store_opens"`
	SegmentOpens      int64 `json:"segment_opens"`
	StoreCloses       int64 `json:"store_closes"`
	StepsPerLifecycle int64 `json:"steps_per_lifecycle"`
}

// RestoreStats summarises restores (wipe, reopen and changelog replay) of
// stores whose last close was unclean under exactly-once. Nanoseconds.
type RestoreStats struct {
	Count int64 `json:"count"`
	P50Ns int64 `json:"p50_ns"`
	// P50LowNs and P50HighNs are a distribution-free 95% interval for the
	// median (order statistics of Binomial(n, ½)); zero with fewer than 6
	// restores, where no such interval exists.
	P50LowNs  int64 `json:"p50_low_ns"`
	P50HighNs int64 `json:"p50_high_ns"`
	MaxNs     int64 `json:"max_ns"`
	// DurationsNs is every restore's duration, in the order they ended,
	// when the engine recorded them (len = Count): the gate compares two
	// runs' restore times with an interval from them (gate's
	// restore_time_p50). Absent in older results (the JVM engine's before
	// 2026-12-06).
	DurationsNs []int64 `json:"durations_ns,omitempty"`
	// RecordsEach is every restore's changelog records replayed, in the
	// order of DurationsNs (len = Count), when the engine recorded them:
	// the gate compares restore time per record replayed, which does not
	// depend on when in a run the restores fell (a restore late in a run
	// replays a longer changelog). Absent in results written before.
	RecordsEach []int64 `json:"records_each,omitempty"`
	Records     int64   `json:"records"` // records replayed
	// SegmentLifecycles is the number of window segments opened and closed
	// during the restores (all restores together): a window store restores
	// from stream time −1, so replaying retention plus
	// windowstore.changelog.additional.retention.ms of changelog creates and
	// expires segments as the restore's stream time advances. 0 for key-value
	// stores.
	SegmentLifecycles int64 `json:"segment_lifecycles"`
}

// Output is everything the children of a run streamed back (package harness produces it).
type Output struct {
	Started, Ended time.Time
	Interrupted    bool
	Runs           []*ModelRun
}

// ModelRun is one model's child process run.
type ModelRun struct {
	Model   string
	Info    ChildInfo
	Samples []Sample
	Summary *Summary
	// Error is set when the child failed: crashed, was killed, or ended
	// without a summary. The run's samples up to then are kept.
	Error string
	// StoppedByGuard says why the parent's memory guard stopped the child,
	// if it did (Error says so too).
	StoppedByGuard string
	// StoppedNoProgress says why the parent stopped a child that made no
	// progress (harness.Progress), if it did (Error says so too).
	StoppedNoProgress string
	// FirstTaskError and FaultsSeen are what the child said of its task
	// errors as they happened (TaskErrorEvent): the first one, and the
	// storage faults they named. They outlive a child killed before its
	// summary.
	FirstTaskError string
	FaultsSeen     []string
	// StateLeft is set when the parent could not remove the model's state
	// directory after its child: the path and the error.
	StateLeft string
	// OutsideRSSPeak is the child's largest RSS seen from outside, bytes.
	OutsideRSSPeak int64
	// Profile is set when the run was profiled (harness.Config.Profile).
	Profile *HeapProfile
}

// HeapProfile is where a profiled model's growth was allocated (rocksleak run --profile): jemalloc's sampled live
// heap dumped by the child at the end of its warm-up and at its end, the difference symbolized by the parent.
// Bytes are unsampled estimates (jeprof's rule), raw.
type HeapProfile struct {
	// File is the growth profile (pprof format, gzipped) relative to the run directory: "<model>/growth.pb.gz".
	File string `json:"file"`
	// SamplingIntervalBytes is jemalloc's mean sampling interval (2^lg_prof_sample).
	SamplingIntervalBytes int64 `json:"sampling_interval_bytes"`
	// WarmLifecycles and EndLifecycles are the lifecycle counts at the two dumps; Lifecycles is their difference.
	WarmLifecycles int64 `json:"warm_lifecycles"`
	EndLifecycles  int64 `json:"end_lifecycles"`
	Lifecycles     int64 `json:"lifecycles"`
	// FailedCloses is the number of failed store closes between the dumps.
	FailedCloses int64 `json:"failed_closes"`
	// GrowthBytes is the live heap's growth between the dumps (inuse_space summed over every stack).
	GrowthBytes int64 `json:"growth_bytes"`
	// GrowthSDBytes estimates the sampling standard deviation of GrowthBytes: the square root of the two dumps'
	// heapprof.Dump.InuseVariance summed. It treats objects live at both dumps, whose sampling errors cancel, as if
	// they were not, so it errs high by their share; 0 in results made before it was recorded.
	GrowthSDBytes float64 `json:"growth_sd_bytes,omitempty"`
	// PromotedBytes is the growth between the dumps of what jemalloc's promotion of sampled small objects to its
	// smallest large class (16 KiB) adds to the native heap (heapprof.Dump.PromotedBytes): a profiled child's
	// native-heap growth is GrowthBytes plus about this.
	PromotedBytes int64 `json:"promoted_bytes"`
	// NativeHeapGrowthBytes is the native heap's growth (jemalloc's stats.allocated) between the same two dumps, read
	// by the child just before each: GrowthBytes plus PromotedBytes estimates it, within the profile's sampling
	// error. Absent from results made before it was recorded.
	NativeHeapGrowthBytes *int64 `json:"native_heap_growth_bytes,omitempty"`
	// Functions is the growth by allocating function (the innermost frame that is not the allocator), every
	// function with a non-zero growth, by decreasing bytes.
	Functions []ProfileFunction `json:"functions,omitempty"`
	// Intervals is the growth between consecutive dumps when the child dumped every K lifecycles (--profile-every).
	Intervals []ProfileInterval `json:"intervals,omitempty"`
	// Error says why there is no profile, or what went wrong making it.
	Error string `json:"error,omitempty"`
	// Profiler is ProfilerNativeMem for the JVM engine's profile (async-profiler's nativemem mode), "" for jemalloc's
	// heap dumps. A nativemem profile's GrowthBytes are the sampled allocations made from WarmLifecycles on that were
	// not freed when the recording stopped, after the child closed every store (StopLifecycles), weighted unsampled,
	// leaving out those made in its last TailFraction (0: none): EndLifecycles is the lifecycle count at that cut,
	// interpolated in the samples' time.
	Profiler string `json:"profiler,omitempty"`
	// RuntimeBytes is the part of a nativemem profile's unfreed bytes that the JVM allocated for itself (HotSpot's
	// os::malloc, which Native Memory Tracking counts): left out of GrowthBytes and Functions, as the native-heap
	// signal leaves out the child's runtime_malloc. The profile's files keep it.
	RuntimeBytes int64 `json:"runtime_bytes,omitempty"`
	// StopLifecycles is the lifecycle count when the nativemem recording stopped.
	StopLifecycles int64 `json:"stop_lifecycles,omitempty"`
	// TailFraction is the share of the nativemem recording, at its end, whose allocations are left out.
	TailFraction float64 `json:"tail_fraction,omitempty"`
	// FlameGraph is the unfreed allocations' flame graph (HTML) relative to the run directory, when made.
	FlameGraph string `json:"flame_graph,omitempty"`
	// NativeHeapSlope and SlopeRatio are filled by the analysis: the run's native-heap slope per lifecycle and the
	// profile's GrowthBytes per lifecycle over it (0 without a fit or with a zero slope).
	NativeHeapSlope float64 `json:"native_heap_slope,omitempty"`
	SlopeRatio      float64 `json:"slope_ratio,omitempty"`
}

// ProfilerNativeMem names async-profiler's nativemem mode in HeapProfile.Profiler.
const ProfilerNativeMem = "async-profiler nativemem"

// ProfileFunction is one allocating function's share of a HeapProfile's growth.
type ProfileFunction struct {
	Function string `json:"function"`
	Bytes    int64  `json:"bytes"`
}

// ProfileInterval is the live heap's growth between two consecutive dumps, FromLifecycles to ToLifecycles.
type ProfileInterval struct {
	FromLifecycles int64 `json:"from_lifecycles"`
	ToLifecycles   int64 `json:"to_lifecycles"`
	GrowthBytes    int64 `json:"growth_bytes"`
	// Functions are the interval's growth by allocating function, the top few by bytes.
	Functions []ProfileFunction `json:"functions,omitempty"`
}
