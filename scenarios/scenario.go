package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/spec"
)

// StoreKind is the kind of state store a scenario drives.
type StoreKind string

// The store kinds.
const (
	// StoreKV is a persistent key-value store: one RocksDB instance.
	StoreKV StoreKind = "kv"
	// StoreWindow is a segmented window store: one RocksDB instance per segment.
	StoreWindow StoreKind = "window"
	// StoreMigrating is a key-value store holding old-format data, so it is served
	// by the dual accessor (old and new data column families).
	StoreMigrating StoreKind = "migrating"
)

// The leak semantics a scenario names (spec.Semantics; see spec.ParseSemantics
// for the aliases "safety-net" and "pin").
const (
	// SemanticsRocksJava is RocksJava's RocksDB.close(): handles the accessor
	// skipped are released late and the DB closes. The default.
	SemanticsRocksJava = spec.RocksJava
	// SemanticsNoSafetyNet is the what-if of a binding without that safety
	// net: a skipped handle pins its DB open, with everything it holds.
	SemanticsNoSafetyNet = spec.NoSafetyNet
)

// Kafka's defaults for the restore.
const (
	// DefaultAdditionalRetentionMs is StreamsConfig's
	// windowstore.changelog.additional.retention.ms default: one day.
	DefaultAdditionalRetentionMs = 86_400_000
	// DefaultRestoreBatchRecords is the restore consumer's max.poll.records
	// default.
	DefaultRestoreBatchRecords = 1000
)

// Limits enforced by Validate.
const (
	// MaxValueBytes is the largest record value.
	MaxValueBytes = 1 << 20
	// MinSampleIntervalMs is the shortest timer-sampling period.
	MinSampleIntervalMs = 10
	// MaxOpenInstances bounds tasks × stores per task × live segments, the
	// number of RocksDB instances open at once (each holds a few file
	// descriptors); beyond it a scenario is almost certainly a units mistake.
	MaxOpenInstances = 16384
	// MaxLifecycles bounds the lifecycles stop condition: more than one
	// machine completes in a week. A store lifecycle opens and closes a
	// RocksDB (14 ms on this project's machine, `make bench`: 70 per second);
	// even at 1 ms each a week holds 6.05 × 10^8.
	MaxLifecycles = 1_000_000_000
	// MaxDuration bounds the duration stop condition: a week.
	MaxDuration = Duration(7 * 24 * time.Hour)
)

// ModelNames returns the known ownership model names in their canonical order
// (spec.ModelNames: leaky, fixed, options-fix, finally-fix, read-options-fix,
// all-fixes).
func ModelNames() []string { return spec.ModelNames() }

// Scenario is one workload. The zero value is not useful: start from [Default],
// [Get] or [Load]. Field comments give units and the constraints Validate
// enforces; the package documentation gives the semantics.
type Scenario struct {
	// Name identifies the scenario in reports and result directories:
	// letters, digits, '.', '_' and '-', starting with a letter or digit.
	Name string `yaml:"name" json:"name"`
	// Description says what the scenario shows.
	Description string `yaml:"description" json:"description"`
	// Models are the ownership models run by default, in order, each once:
	// any of spec.ModelNames ("leaky", "fixed", "options-fix", "finally-fix",
	// "read-options-fix", "all-fixes"), run by the Go engine, or
	// "kafka-<version>" (spec.KafkaVersion: Kafka Streams' own jars of that
	// version, run by the JVM engine), each optionally with
	// spec.SyntheticSuffix and an allocator (spec.ParseRunName; Runs parses
	// them). Non-empty, no duplicates.
	Models []string `yaml:"models" json:"models"`
	// Store is the kind of store: "kv", "window" or "migrating".
	Store StoreKind `yaml:"store" json:"store"`
	// Tasks is the number of stream tasks, ≥ 1.
	Tasks int `yaml:"tasks" json:"tasks"`
	// StoresPerTask is the number of stores of Store kind in each task, ≥ 1.
	StoresPerTask int `yaml:"stores_per_task" json:"stores_per_task"`
	// RetentionMs is the window store retention in ms of stream time; > 0 for
	// window stores, ignored otherwise.
	RetentionMs int64 `yaml:"retention_ms" json:"retention_ms"`
	// SegmentIntervalMs is the window segment interval in ms; 0 derives it as
	// Kafka does (see SegmentInterval). Ignored for other stores.
	SegmentIntervalMs int64 `yaml:"segment_interval_ms" json:"segment_interval_ms"`
	// AdditionalRetentionMs is Kafka's windowstore.changelog.additional.retention.ms
	// (StreamsConfig, default 86400000: one day), ≥ 0: a window store's
	// changelog keeps records for retention + this long, and a restore from
	// scratch replays all of them. Ignored for other stores.
	AdditionalRetentionMs int64 `yaml:"additional_retention_ms" json:"additional_retention_ms"`
	// RestoreBatchRecords is the number of changelog records per restore
	// batch (the restore consumer's max.poll.records, default 1000), ≥ 1. A
	// window store advances its stream time per batch, so a batch spanning
	// more than the retention skips segments instead of creating them.
	RestoreBatchRecords int `yaml:"restore_batch_records" json:"restore_batch_records"`
	// StepMs is the stream-time advance per step in ms, > 0.
	StepMs int64 `yaml:"step_ms" json:"step_ms"`
	// RecordsPerStep is the number of records written per store per step, ≥ 0.
	RecordsPerStep int `yaml:"records_per_step" json:"records_per_step"`
	// ValueBytes is the size of each record value, in [1, MaxValueBytes].
	ValueBytes int `yaml:"value_bytes" json:"value_bytes"`
	// KeySpread is the number of distinct keys per store, ≥ 1.
	KeySpread int `yaml:"key_spread" json:"key_spread"`
	// ChangelogPartitions is the number of changelog offset keys per store, ≥ 1.
	ChangelogPartitions int `yaml:"changelog_partitions" json:"changelog_partitions"`
	// ExactlyOnce makes an unclean status on reopen wipe and restore the store.
	ExactlyOnce bool `yaml:"exactly_once" json:"exactly_once"`
	// CloseFailureRate is the probability that a store close fails, in [0,1].
	CloseFailureRate float64 `yaml:"close_failure_rate" json:"close_failure_rate"`
	// CloseFailureKind is "transient" or "sticky".
	CloseFailureKind spec.Fault `yaml:"close_failure_kind" json:"close_failure_kind"`
	// Cascade models exactly-once-v2 fencing: one failed close in a task fails
	// the close of every store of that task in that step. Needs ExactlyOnce.
	Cascade bool `yaml:"cascade" json:"cascade"`
	// InitFailureRate is the probability that a store open fails during init,
	// in [0,1].
	InitFailureRate float64 `yaml:"init_failure_rate" json:"init_failure_rate"`
	// LeakSemantics is what the DB's close does with column-family handles a
	// failed close skipped: "rocksjava" (the default: RocksJava's
	// RocksDB.close() releases them late and the DB closes) or "no-safety-net"
	// (a binding without that safety net: they pin the DB). "safety-net" and
	// "pin" are accepted as aliases (spec.ParseSemantics).
	LeakSemantics spec.Semantics `yaml:"leak_semantics" json:"leak_semantics"`
	// RebalanceEverySteps is the number of steps between rebalances, ≥ 0;
	// 0 means never.
	RebalanceEverySteps int `yaml:"rebalance_every_steps" json:"rebalance_every_steps"`
	// RebalanceTasks is the share of tasks moved per rebalance, in (0,1].
	RebalanceTasks float64 `yaml:"rebalance_tasks" json:"rebalance_tasks"`
	// Lifecycles stops each model after this many lifecycles, ≥ 0; 0 means
	// no lifecycle limit.
	Lifecycles int `yaml:"lifecycles" json:"lifecycles"`
	// Duration stops each model after this much wall time, ≥ 0; 0 means no
	// time limit. At least one of Lifecycles and Duration must be set.
	Duration Duration `yaml:"duration" json:"duration"`
	// SampleEveryLifecycles takes a memory sample every this many lifecycles,
	// ≥ 1.
	SampleEveryLifecycles int `yaml:"sample_every_lifecycles" json:"sample_every_lifecycles"`
	// SampleIntervalMs is the wall-time period of the timer sampler in ms,
	// ≥ MinSampleIntervalMs.
	SampleIntervalMs int `yaml:"sample_interval_ms" json:"sample_interval_ms"`
	// SyntheticLeakBytes is allocated, touched and never freed per lifecycle
	// by the models named with spec.SyntheticSuffix (calibration), ≥ 0; > 0 when
	// such a model is listed.
	SyntheticLeakBytes int `yaml:"synthetic_leak_bytes" json:"synthetic_leak_bytes"`
	// RestoreScratchBytes is native memory held during each restore and then
	// freed, ≥ 0: malloc'd C memory, every byte touched (lifecycle.Scratch;
	// the JVM child's RestoreScratch), a synthetic transient peak for the
	// restore-peak negative control, not a Kafka code path.
	RestoreScratchBytes int `yaml:"restore_scratch_bytes" json:"restore_scratch_bytes"`
	// BoundedCacheBytes, when > 0, runs every store with Kafka's documented
	// bounded-memory RocksDBConfigSetter (docs/streams/developer-guide/memory-mgmt,
	// BoundedMemoryRocksDBConfig, applied after openDB's defaults): one LRU
	// cache of this capacity shared by every store, index and filter blocks
	// cached in it with high priority (ratio 0.1), top-level index and filter
	// pinned, and a WriteBufferManager charging memtables to it. As in the
	// docs' example the cache is not strict (strictCapacityLimit false). 0: no
	// config setter (Kafka's defaults). ≥ 0.
	BoundedCacheBytes int64 `yaml:"bounded_cache_bytes" json:"bounded_cache_bytes"`
	// BoundedWriteBufferBytes is the WriteBufferManager's limit on all
	// memtables (the docs' TOTAL_MEMTABLE_MEMORY), charged to the shared
	// cache; > 0 when BoundedCacheBytes is, else 0.
	BoundedWriteBufferBytes int64 `yaml:"bounded_write_buffer_bytes" json:"bounded_write_buffer_bytes"`
	// ReadBack, when true, reads the records back as a reading application
	// does: every put is preceded by a point read of its key (op get: a
	// key-value store's get, a window store's fetch(key, ts), as Kafka's
	// aggregations read before they write), and every commit by a range read
	// of each of the task's stores (op range: a key-value store's all(), a
	// window store's fetchAll over every live segment), so the stores' block
	// caches fill from their SST files. false: writes only.
	ReadBack bool `yaml:"read_back" json:"read_back"`
	// Seed seeds every random choice of the run (keys, failures, rebalanced
	// tasks).
	Seed int64 `yaml:"seed" json:"seed"`
}

// Default returns the field defaults that a user scenario file is decoded over.
// It is not a catalogue entry and is not runnable as is: it has no name and no
// stop condition (Lifecycles and Duration are both zero), so a file must set
// at least one of them.
func Default() Scenario {
	return Scenario{
		Models:                []string{spec.Leaky.Name, spec.Fixed.Name},
		Store:                 StoreWindow,
		Tasks:                 1,
		StoresPerTask:         1,
		RetentionMs:           120_000,
		AdditionalRetentionMs: DefaultAdditionalRetentionMs,
		RestoreBatchRecords:   DefaultRestoreBatchRecords,
		StepMs:                20_000,
		RecordsPerStep:        50,
		ValueBytes:            128,
		KeySpread:             1000,
		ChangelogPartitions:   1,
		CloseFailureKind:      spec.FaultTransient,
		LeakSemantics:         SemanticsRocksJava,
		RebalanceTasks:        0.5,
		SampleEveryLifecycles: 1,
		SampleIntervalMs:      250,
		Seed:                  1,
	}
}

// Runs parses Models (spec.ParseRunName against spec.ModelNames); the error
// names the field, the bad value and the known models.
func (s Scenario) Runs() ([]spec.RunName, error) {
	out := make([]spec.RunName, 0, len(s.Models))
	for _, m := range s.Models {
		rn, err := spec.ParseRunName(m, ModelNames())
		if err != nil {
			return nil, fmt.Errorf("%w: scenario %q: models: %w", ErrInvalid, s.Name, err)
		}
		out = append(out, rn)
	}
	return out, nil
}

// Semantics returns LeakSemantics resolved (aliases and "" mapped to the
// canonical spec.Semantics); the error names the field and the known values.
func (s Scenario) Semantics() (spec.Semantics, error) {
	sem, err := spec.ParseSemantics(string(s.LeakSemantics))
	if err != nil {
		return "", fmt.Errorf("%w: scenario %q: leak_semantics: %w", ErrInvalid, s.Name, err)
	}
	return sem, nil
}

// SegmentInterval returns the window segment interval in ms:
// spec.SegmentIntervalMs of the retention and SegmentIntervalMs (Kafka's
// derivation max(retention/2, 60000) when it is 0). It is meaningful for
// window stores only.
func (s Scenario) SegmentInterval() int64 {
	return spec.SegmentIntervalMs(s.RetentionMs, s.SegmentIntervalMs)
}

// LiveSegments returns how many RocksDB instances one store keeps open in
// steady state: retention/interval + 1 for a window store, 1 otherwise. For an
// invalid scenario the result is clamped to [1, math.MaxInt].
func (s Scenario) LiveSegments() int {
	if s.Store != StoreWindow || s.RetentionMs <= 0 {
		return 1
	}
	n := s.RetentionMs / s.SegmentInterval()
	if n >= math.MaxInt-1 {
		return math.MaxInt
	}
	return int(n) + 1
}

// resolved returns a copy with derived values made explicit and aliases
// resolved, so that
// equivalent scenarios digest alike.
func (s Scenario) resolved() Scenario {
	r := s.clone()
	if r.Store == StoreWindow {
		r.SegmentIntervalMs = r.SegmentInterval()
	}
	if sem, err := r.Semantics(); err == nil {
		r.LeakSemantics = sem // "pin" and "no-safety-net" are the same workload
	}
	return r
}

// clone returns a copy that shares no slice with s; a nil model list becomes
// an empty one.
func (s Scenario) clone() Scenario {
	c := s
	c.Models = append([]string{}, s.Models...)
	return c
}

// Digest returns the hex SHA-256 of the canonical JSON of the resolved
// scenario (derived segment interval made explicit). It identifies the exact
// workload a result was measured on. Every field counts, including name and
// description. Scenarios holding non-finite rates (which Parse and Set reject
// and Validate reports) still get a digest, from their Go syntax instead.
func (s Scenario) Digest() string {
	r := s.resolved()
	b, err := json.Marshal(r)
	if err != nil {
		b = fmt.Appendf(nil, "%#v", r)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// CanonicalYAML returns the scenario as YAML with every field present, in field
// order, indented by two spaces. Parse of the result gives back s.
func (s Scenario) CanonicalYAML() []byte {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(s.clone()); err != nil {
		// Every field is a plain string, number, bool, string list or Duration;
		// yaml.v3 cannot fail on them.
		panic(fmt.Sprintf("scenarios: encoding canonical YAML: %v", err))
	}
	if err := enc.Close(); err != nil {
		panic(fmt.Sprintf("scenarios: encoding canonical YAML: %v", err))
	}
	return buf.Bytes()
}

// Duration is a time.Duration that reads as units.ParseDuration does ("30s",
// "1m30s", "1d") and writes as a Go duration string ("30s", "24h0m0s") in
// YAML and JSON.
type Duration time.Duration

// String formats d as time.Duration does.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a duration string such as "30s"; bare numbers are
// rejected because their unit would be a guess.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: duration must be a string such as \"30s\"", n.Line)
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// MarshalJSON writes d as a JSON duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a JSON duration string such as "30s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return fmt.Errorf("duration must be a string such as \"30s\": %w", err)
	}
	v, err := parseDuration(str)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// parseDuration reads a duration as every file and flag does (see
// units.ParseDuration: a Go duration, optionally led by days, "30d").
func parseDuration(str string) (Duration, error) {
	v, err := units.ParseDuration(str)
	if err != nil {
		return 0, fmt.Errorf("duration: %w", err)
	}
	return Duration(v), nil
}
