package schema

// This file is reliability.json, the record of a reliability sweep
// (`rocksleak reliability`, joined by `rocksleak merge`): how often each model
// was called a leak over many seeds, with the per-seed slopes and standard
// errors behind the spread. The run half fills it seed by seed; the tallies and
// tables are package sweep's. Numbers are raw: bytes per
// lifecycle, seconds, counts.

// Reliability is the content of reliability.json.
type Reliability struct {
	Scenario string `json:"scenario"`
	// FirstSeed and SeedCount are the whole sweep's seeds (FirstSeed,
	// FirstSeed+1, ...), of which a shard runs its share.
	FirstSeed int64 `json:"first_seed"`
	SeedCount int   `json:"seed_count"`
	// Shard is "K/N" for the K-th of N shards; empty for a whole sweep,
	// unsharded or merged.
	Shard        string `json:"shard,omitempty"`
	UntilVerdict bool   `json:"until_verdict,omitempty"`
	// Interrupted: the sweep was stopped by a signal. Seeds are the seeds
	// that finished; a seed cut short has its own result, marked
	// interrupted, in its directory and is not tallied.
	Interrupted bool     `json:"interrupted,omitempty"`
	Seeds       []int64  `json:"seeds"`
	Models      []string `json:"models"`
	// Replicate are the models of --replicate: each seed's directory holds
	// their second run under replicate/, which merge pairs again.
	Replicate []string                     `json:"replicate,omitempty"`
	Tally     map[string]*ReliabilityTally `json:"tally"`
	Calib     map[string]*CalibrationTally `json:"calibration,omitempty"`
	// Controlled tallies the controlled verdicts by "model vs control
	// (signal)" (see analysis.Controlled).
	Controlled map[string]*ControlledTally `json:"controlled,omitempty"`
	Runs       []string                    `json:"runs"` // result directories, one per seed
}

// ReliabilityTally counts one model's verdicts over the seeds (the counts
// keep their Go names as JSON keys: Leak, NoLeak, Inconclusive, Failed).
type ReliabilityTally struct {
	Leak, NoLeak, Inconclusive, Failed int
	// NativePerLifecycle are the per-seed whole native-heap growths per
	// lifecycle (bytes), for their spread across seeds.
	NativePerLifecycle []float64 `json:"native_per_lifecycle"`
	RSSPerLifecycle    []float64 `json:"rss_per_lifecycle"`
	// NativeSE and RSSSE are the per-seed reported standard errors of
	// those slopes, for the spread-to-SE ratio.
	NativeSE []float64 `json:"native_se"`
	RSSSE    []float64 `json:"rss_se"`
	// With --until-verdict: seconds from the child's start until the
	// native-heap verdict and the verdict settled, the lifecycles run by
	// then (which, unlike seconds, do not stretch with the machine's load),
	// and how often the early verdict was "leak".
	NativeSettledS           []float64 `json:"native_settled_s,omitempty"`
	VerdictSettledS          []float64 `json:"verdict_settled_s,omitempty"`
	NativeSettledLifecycles  []int64   `json:"native_settled_lifecycles,omitempty"`
	VerdictSettledLifecycles []int64   `json:"verdict_settled_lifecycles,omitempty"`
	EarlyLeak                int       `json:"early_leak"`
}

// ControlledTally counts one pair's controlled verdicts over the seeds.
type ControlledTally struct {
	Leak, NoLeak, Inconclusive int
	Differences                []float64 `json:"differences"` // per seed, model − control per lifecycle
	Lifecycles                 []int64   `json:"lifecycles"`
}

// CalibrationTally holds a calibration model's per-seed relative errors of
// the measured against the known leak.
type CalibrationTally struct {
	NativeErrors []float64 `json:"native_relative_errors"`
	RSSErrors    []float64 `json:"rss_relative_errors"`
}
