package schema

import (
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

// SchemaVersion is the version of result.json this package writes and reads.
const SchemaVersion = 1

// Run statuses.
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
)

// Result is the content of result.json. Numbers are raw: bytes, nanoseconds,
// counts.
type Result struct {
	SchemaVersion int                `json:"schema_version"`
	Tool          string             `json:"tool"`
	Status        string             `json:"status"` // complete, interrupted or failed
	Interrupted   bool               `json:"interrupted"`
	Errors        []string           `json:"errors,omitempty"`
	Scenario      scenarios.Scenario `json:"scenario"`
	Models        []string           `json:"models"` // in run order
	Provenance    Provenance         `json:"provenance"`
	Runs          map[string]*Run    `json:"runs"`
	// Floors are the absolute per-lifecycle floors the verdicts used.
	Floors      VerdictFloors `json:"verdict_floors"`
	Comparisons []Comparison  `json:"comparisons,omitempty"`
	Attribution []Attribution `json:"attribution,omitempty"`
	Calibration []Calibration `json:"calibration,omitempty"`
	// Controlled are the controlled verdicts: each model judged against a
	// control in the same run that differs from it by one thing (one fix, or
	// the synthetic leak), on the difference of their slopes.
	Controlled []Controlled `json:"controlled,omitempty"`
}

// Controlled is a controlled verdict (stats.CompareFits): Model − Control
// per lifecycle for one signal, with its interval, and the verdict on it
// ("leak", "no leak" or "inconclusive") with its reason. Differs names
// what the model lacks or adds relative to the control ("read-options fix
// missing", "synthetic leak").
type Controlled struct {
	Model      string         `json:"model"`
	Control    string         `json:"control"`
	Differs    string         `json:"differs"`
	Signal     string         `json:"signal"`
	Difference stats.Estimate `json:"difference_per_lifecycle"`
	// Confidence is the two-sided level of Difference's interval: 0.99 for
	// the paired difference (stats.PairedConfidence), 0.95 for the difference
	// of two fits. 0 in results written before it was recorded, whose
	// intervals were all 95% (ControlledConfidence).
	Confidence float64 `json:"confidence,omitempty"`
	Verdict    string  `json:"verdict"`
	Reason     string  `json:"reason"`
	// Withheld is the blocking flag that made Verdict inconclusive whatever
	// Difference's interval says (stats.Comparison.Withheld: "paired
	// difference: warmup-at-limit"); empty when the verdict follows from the
	// interval alone. A report that shows the verdict beside the interval
	// shows it too.
	Withheld string `json:"withheld,omitempty"`
	// Fallback, set when a flag withheld the whole-run comparison and other
	// evidence was tried (analysis.ControlledAgainst), says what the verdict
	// rests on and the withheld whole-run interval when Withheld is empty (the
	// fallback settled it: Difference and Confidence are the fallback's), or
	// why no fallback settled it when Withheld is set.
	Fallback string `json:"fallback,omitempty"`
	// Basis names, in a few words, what a settled fallback's Difference is
	// ("later halves", "paired later half", "whole-run fits"); empty when
	// Difference is the whole-run comparison's.
	Basis string `json:"basis,omitempty"`
	// Lifecycles is the smaller of the two runs' lifecycle counts: what the
	// verdict took.
	Lifecycles int64 `json:"lifecycles"`
}

// ControlledConfidence is the level of c's interval, 0.95 for results
// written before Controlled.Confidence was recorded.
func ControlledConfidence(c Controlled) float64 {
	if c.Confidence > 0 && c.Confidence < 1 {
		return c.Confidence
	}
	return 0.95
}

// Provenance says where and with what a result was produced.
type Provenance struct {
	// RocksDBVersion is read from the library at run time: RocksDB 7.8.3 for
	// the Go engine, the rocksdbjni of the Kafka version for the JVM engine;
	// the distinct versions in run order, ", "-separated, when a run mixed
	// them (each run's own is Run.RocksDBVersion).
	RocksDBVersion  string         `json:"rocksdb_version"`
	GrocksdbVersion string         `json:"grocksdb_version"`
	GoVersion       string         `json:"go_version"`
	GitCommit       string         `json:"git_commit"`
	Host            string         `json:"host"`
	OS              string         `json:"os"`
	Arch            string         `json:"arch"`
	CPUs            int            `json:"cpus"`
	Seed            int64          `json:"seed"`
	ScenarioDigest  string         `json:"scenario_digest"`
	Allocator       spec.Allocator `json:"allocator"`
	StartTime       string         `json:"start_time"` // RFC 3339, UTC
	EndTime         string         `json:"end_time"`
	Command         string         `json:"command,omitempty"`
	// Machine is what the parent saw of the host (gopsutil and cgroup v2);
	// absent in results from before it was recorded.
	Machine *Machine `json:"machine,omitempty"`
}

// Machine is the host a result was measured on, for comparing figures across
// machines. Bytes; zero when unknown. Cgroup limits are zero when not set.
type Machine struct {
	CPUModel     string `json:"cpu_model"`
	LogicalCPUs  int    `json:"logical_cpus"`
	MemTotal     int64  `json:"mem_total"`
	MemAvailable int64  `json:"mem_available"` // when the run started
	Kernel       string `json:"kernel"`
	Platform     string `json:"platform"` // distribution and version
	// CgroupMemoryMax is cgroup v2 memory.max of the process's cgroup (0: "max" or no cgroup v2).
	CgroupMemoryMax int64 `json:"cgroup_memory_max"`
	// CgroupCPUs is cgroup v2 cpu.max as CPUs (quota / period; 0: "max").
	CgroupCPUs float64 `json:"cgroup_cpus"`
}

// Run is one model's results.
type Run struct {
	Summary
	ChildPID int `json:"child_pid"`
	// Allocator is the C allocator the child ran with (glibc, or jemalloc
	// preloaded), as its sampler detected it.
	Allocator spec.Allocator `json:"allocator"`
	// RocksDBVersion is the RocksDB the child ran, as it read it (empty in
	// results written before it was recorded per run).
	RocksDBVersion string `json:"rocksdb_version,omitempty"`
	Samples        int    `json:"samples"`
	// The run's error is Summary.Error ("error"): FromOutput sets it to the
	// ModelRun's error, what ended the model's run early as the parent saw it.
	// Change between the first and the last sample. Bytes.
	NativeHeapStart int64 `json:"native_heap_start"`
	NativeHeapEnd   int64 `json:"native_heap_end"`
	RSSStart        int64 `json:"rss_start"`
	RSSEnd          int64 `json:"rss_end"`
	// The instrument's own memory in the child at the first and the last
	// sample: its Go heap (Memory.GoHeap; Unavailable in a JVM child) and
	// the resident bytes its runtime holds (Memory.RuntimeBytes; 0 in
	// results written before it was recorded). Bytes.
	GoHeapStart  int64 `json:"go_heap_start"`
	GoHeapEnd    int64 `json:"go_heap_end"`
	RuntimeStart int64 `json:"runtime_start"`
	RuntimeEnd   int64 `json:"runtime_end"`
	// The instrument's runtime's own mallocs at the first and the last
	// sample (Memory.RuntimeMalloc: a JVM child's, read by Native Memory
	// Tracking; 0 for a Go child and in results written before it was
	// recorded). Part of the native heap; the fits leave them out. Bytes.
	RuntimeMallocStart int64 `json:"runtime_malloc_start,omitempty"`
	RuntimeMallocEnd   int64 `json:"runtime_malloc_end,omitempty"`
	// Fits by signal (native_heap, rss, go_heap, fds) and the verdict.
	Fits    map[string]SignalFit `json:"fits,omitempty"`
	Verdict *Verdict             `json:"verdict,omitempty"`
	// Resident is the cost of one open store instance at steady state.
	Resident *Resident `json:"resident,omitempty"`
	// WithinLifecycle is an application run's growth while a task's stores are open (analysis.WithinLifecycle).
	WithinLifecycle *WithinLifecycle `json:"within_lifecycle,omitempty"`
	// LedgerGrowth are the ledger's kinds whose live count keeps rising with lifecycles (analysis.GrowingKinds,
	// over the samples between lifecycles), sorted by kind: what a leak leaves live, by kind. None: no kind grows
	// (or too few samples to tell).
	LedgerGrowth []LedgerGrowth `json:"ledger_growth,omitempty"`
	// Sequential is set for runs with --until-verdict: when the native-heap
	// verdict and the verdict settled.
	Sequential *SequentialOutcome `json:"sequential,omitempty"`
	// Profile is where the growth was allocated, for a run with --profile.
	Profile *HeapProfile `json:"profile,omitempty"`
	// StoppedByGuard is set when the parent's memory guard stopped the child
	// (its RSS, seen from outside, crossed --max-rss): why, in words.
	StoppedByGuard string `json:"stopped_by_guard,omitempty"`
	// StoppedNoProgress is set when the parent stopped the child for making
	// no progress (no lifecycle for a while, or task errors far outpacing its
	// lifecycles): why, the first task error, and what to fix.
	StoppedNoProgress string `json:"stopped_no_progress,omitempty"`
	// OutsideRSSPeak is the largest RSS of the child the parent's guard saw
	// from outside (/proc via gopsutil), bytes; 0 when not watched.
	OutsideRSSPeak int64 `json:"outside_rss_peak,omitempty"`
	// RSSPeak is the largest RSS among the child's own samples, bytes.
	RSSPeak int64 `json:"rss_peak,omitempty"`
}

// SequentialOutcome records the looks of a Sequential at which each verdict
// settled (nil: not settled before the run's stop condition).
type SequentialOutcome struct {
	Confidence float64 `json:"confidence"` // of each look's intervals (of the stopping look, with Rule)
	MaxLooks   int     `json:"max_looks"`
	Looks      int     `json:"looks"`
	// Rule names the stopping rule ("" for the old Bonferroni looks);
	// PlannedLifecycles is its information horizon.
	Rule              string  `json:"rule,omitempty"`
	PlannedLifecycles float64 `json:"planned_lifecycles,omitempty"`
	Native            *Look   `json:"native_heap,omitempty"`
	Verdict           *Look   `json:"verdict,omitempty"`
}

// SignalFit is one signal's fit for one model: stats.Fit itself (slopes in
// the signal's unit, bytes or open FDs for "fds", per lifecycle, per failed
// close and per million records, each with its interval), with the unit,
// the per-lifecycle, per-failed-close and per-million-records values and
// the per-lifecycle interval repeated at the top (the file's first fields,
// for readers of older results), and the fit on lifecycles alone. NewSignalFit
// makes one.
type SignalFit struct {
	Unit                   string     `json:"unit"` // "bytes" or "fds"
	BytesPerLifecycle      float64    `json:"bytes_per_lifecycle"`
	CI95                   [2]float64 `json:"ci95"`
	BytesPerFailedClose    float64    `json:"bytes_per_failed_close"`
	BytesPerMillionRecords float64    `json:"bytes_per_million_records"`
	stats.Fit
	// Total is the fit on lifecycles alone (Y ~ 1 + Lifecycles): the whole
	// growth per lifecycle at the run's failure rate, failed closes included.
	// Verdicts are decided on it; the fields above separate the two costs.
	Total *SignalFit `json:"total,omitempty"`
}

// NewSignalFit is f in unit, with the values it repeats at the top.
func NewSignalFit(f stats.Fit, unit string) SignalFit {
	return SignalFit{Unit: unit, BytesPerLifecycle: f.PerLifecycle.Value,
		CI95:                [2]float64{f.PerLifecycle.Low, f.PerLifecycle.High},
		BytesPerFailedClose: f.PerFailedClose.Value, BytesPerMillionRecords: f.PerMillionRecords.Value, Fit: f}
}

// Resident is what one open store instance (a DB: a kv store or one window
// segment) costs while it is open, from the run's steady state: the median,
// over the second half of the samples, of (signal − the signal at the first
// sample, taken before anything was opened) / open DBs. Bytes per open DB.
// For RSS the Go heap (the harness's own memory: changelog, samples) is
// subtracted first.
// Under a leaky model it includes what leaked so far, so read it from a
// model that does not leak.
type Resident struct {
	NativeHeapPerDB float64 `json:"native_heap_per_db"`
	RSSPerDB        float64 `json:"rss_per_db"`
	OpenDBs         float64 `json:"open_dbs"` // median open DBs over the same samples
}

// WithinLifecycle is growth inside a task's life, its stores open: the code's native heap from after the first
// step to before the close (the samples TriggerAfterOpen and TriggerBeforeClose of an application's run), per
// lifecycle, beyond what RocksDB's own figures account for (Accounted: the median growth of its memtables, table
// readers and block cache over the same span). Bytes; Growth the median over Lifecycles, [Low, High] its distribution-free interval at Confidence
// (0 when too few). Records, Steps and Punctuations are those between the two samples (medians; Punctuations 0
// when Kafka did not record them, below metrics.recording.level DEBUG). OpenIteratorsPeak is Kafka's
// num-open-iterators (KIP-989), summed over the stores, the largest before a close. Present: Low above the native
// heap's floor.
type WithinLifecycle struct {
	Lifecycles        int     `json:"lifecycles"`
	Growth            float64 `json:"growth"`
	Accounted         float64 `json:"accounted"`
	Low               float64 `json:"low"`
	High              float64 `json:"high"`
	Confidence        float64 `json:"confidence"`
	Records           float64 `json:"records"`
	Steps             float64 `json:"steps"`
	Punctuations      float64 `json:"punctuations"`
	OpenIteratorsPeak int64   `json:"open_iterators_peak"`
	Present           bool    `json:"present"`
	Reason            string  `json:"reason"`
	// Kafka's own figures before the close, medians over the lifecycles: the RocksDB instances open, and RocksDB's
	// block-cache-usage, size-all-mem-tables and estimate-table-readers-mem from the driver's metrics, summed over
	// the stores (a cache shared by n stores counted n times). Bytes.
	OpenStores   float64 `json:"open_stores"`
	BlockCache   float64 `json:"block_cache"`
	MemTables    float64 `json:"memtables"`
	TableReaders float64 `json:"table_readers"`
}

// Verdict is a model's leak verdict: Leak is true, false, or null when
// inconclusive; Reason says why, in words and numbers.
type Verdict struct {
	Leak     *bool    `json:"leak"`
	Reason   string   `json:"reason"`
	Warnings []string `json:"warnings,omitempty"`
	// Settle says, for an inconclusive verdict, what would settle it; Flags
	// are the blocking flags of the fits it rests on ("native heap:
	// slope-not-constant").
	Settle string   `json:"settle,omitempty"`
	Flags  []string `json:"flags,omitempty"`
	// EarlyStop is set when --until-verdict stopped the run at this verdict
	// before its planned end: the estimate is biased away from the floor.
	EarlyStop bool `json:"early_stop,omitempty"`
	// CacheBound is set when the native heap's growth above its floor is partly the block caches the stores
	// share filling toward their capacity: the verdict then rests on the native heap outside them
	// (analysis.cacheBound).
	CacheBound *CacheBound `json:"cache_bound,omitempty"`
}

// CacheBound is what a verdict took out of the native heap's growth: block caches that outlive the stores (one
// shared by every store, as Kafka's bounded-memory setter builds it), read between task lives, whose usage rose
// below their capacity, which bounds it. Bytes; estimates per lifecycle at the verdict's confidence.
type CacheBound struct {
	Caches   int     `json:"caches"`   // how many, each counted once (the same at every sample)
	Usage    float64 `json:"usage"`    // their usage at the last sample
	Capacity float64 `json:"capacity"` // their capacity
	// Growth is the caches' usage per lifecycle; Outside the native heap less that usage, per lifecycle, which
	// the verdict decided on.
	Growth  stats.Estimate `json:"growth_per_lifecycle"`
	Outside stats.Estimate `json:"outside_per_lifecycle"`
	// FullAfter is how many more lifecycles the caches take to reach their capacity at Growth's rate.
	FullAfter float64 `json:"full_after_lifecycles"`
}

// Comparison is the difference in per-lifecycle slope between two models'
// runs for one signal: A − B, B being the baseline (the later model in run
// order), as analysis.Difference defines every difference.
type Comparison struct {
	A          string         `json:"a"`
	B          string         `json:"b"`
	Signal     string         `json:"signal"`
	Difference stats.Estimate `json:"difference_per_lifecycle"`
}

// Attribution splits the leaky model's growth into the two leaks, from the
// whole per-lifecycle growth (Total fits) of the four models' runs: the
// offsets-options leak is finally-fix − fixed (the model with only that leak),
// the handle leak is options-fix − fixed, per lifecycle at the run's failure
// rate and, divided by the options-fix run's failed closes per lifecycle, per
// failed close.
type Attribution struct {
	Signal                   string         `json:"signal"`
	OptionsLeakPerLifecycle  stats.Estimate `json:"options_leak_per_lifecycle"`
	HandleLeakPerLifecycle   stats.Estimate `json:"handle_leak_per_lifecycle"`
	HandleLeakPerFailedClose stats.Estimate `json:"handle_leak_per_failed_close"`
	LeakyTotalPerLifecycle   stats.Estimate `json:"leaky_total_per_lifecycle"`
	// Interaction is leaky − options-fix − finally-fix + fixed: what the
	// two leaks cost together beyond their sum (≈ 0 when they add up).
	Interaction float64 `json:"interaction_per_lifecycle"`
	// InteractionInterval is the same term with its interval (stats.Interaction).
	InteractionInterval stats.Estimate `json:"interaction_interval"`
}

// VerdictFloors are the absolute floors a leak must clear, in bytes per lifecycle.
type VerdictFloors struct {
	NativeHeap float64 `json:"native_heap"`
	RSS        float64 `json:"rss"`
}

// Calibration checks the estimators against a known leak: a "+synthetic"
// model leaks KnownPerLifecycle bytes per lifecycle on top of its control
// (the same model without the suffix, in the same run), so the difference of
// their whole per-lifecycle growth should recover it. Errors are relative:
// (estimate − known) / known.
type Calibration struct {
	Model             string         `json:"model"`
	Control           string         `json:"control"`
	KnownPerLifecycle float64        `json:"known_bytes_per_lifecycle"`
	NativeHeap        stats.Estimate `json:"native_heap"`
	NativeHeapError   float64        `json:"native_heap_relative_error"`
	RSS               stats.Estimate `json:"rss"`
	RSSError          float64        `json:"rss_relative_error"`
}

// Look is the state of a verdict at one look.
type Look struct {
	Look       int     `json:"look"`
	Samples    int     `json:"samples"`
	Lifecycles int64   `json:"lifecycles"`
	ElapsedNs  int64   `json:"elapsed_ns"` // since the model's child started
	Confidence float64 `json:"confidence"`
	Leak       *bool   `json:"leak"`
	Reason     string  `json:"reason"`
}

// LedgerGrowth is one kind of native object whose live count the ledger saw
// rise in proportion to lifecycles: a count that keeps growing, not the
// objects of the stores open at a time.
type LedgerGrowth struct {
	Kind string `json:"kind"`
	// PerLifecycle is the least-squares slope of the kind's live count on
	// lifecycles over the later half of the samples.
	PerLifecycle float64 `json:"per_lifecycle"`
	// LiveAtEnd is the kind's live count at the last sample.
	LiveAtEnd int64 `json:"live_at_end"`
}
