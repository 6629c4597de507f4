package schema

// This file is the record of an upgrade rehearsal (`rocksleak rehearse`): a
// fleet of instances, each its own child process with its own state
// directory, taken from one model (version) to another phase by phase as the
// upgrade-governance source prescribes: baseline, canary, gated expansion by
// failure domain, and, when a gate fails, a rollback that is verified.
// Numbers are raw: bytes, nanoseconds, milliseconds of simulated (stream)
// time, counts. The run half fills it; the analysis half (rehearsal)
// gates and renders it and never needs the run half.

// RehearsalSchemaVersion is the version of rehearsal.json.
const RehearsalSchemaVersion = 1

// Rehearsal statuses. Exit codes: complete → 0, rolled-back → 1, bad input
// → 2 (no record written), rollback-failed → 3; interrupted and failed runs
// still write a record with their status.
const (
	RehearsalComplete       = "complete"        // the rollout reached every instance
	RehearsalRolledBack     = "rolled-back"     // a gate failed; the rollback verified
	RehearsalRollbackFailed = "rollback-failed" // a gate failed; the rollback did not verify
	RehearsalInterrupted    = "interrupted"
	RehearsalFailed         = "failed"
)

// Rehearsal is the content of rehearsal.json.
type Rehearsal struct {
	SchemaVersion int        `json:"schema_version"`
	Tool          string     `json:"tool"`
	Status        string     `json:"status"`
	Errors        []string   `json:"errors,omitempty"`
	Provenance    Provenance `json:"provenance"`
	// From and To are the models (versions) rolled from and to; Scenario is
	// the workload every instance runs (its tasks are spread over the fleet).
	From     string `json:"from"`
	To       string `json:"to"`
	Scenario string `json:"scenario"`
	Seed     int64  `json:"seed"`
	// MaxRestarts is how many instances may restart at once; WindowMs is
	// each gated phase's length in simulated time.
	MaxRestarts int   `json:"max_restarts"`
	WindowMs    int64 `json:"window_ms"`
	// RecordsPerSecond is the input rate per task in simulated time; lag is
	// measured against it.
	RecordsPerSecond float64 `json:"records_per_second"`
	// Utilization is the share of an instance's processing capacity the
	// input uses: simulated time runs at StepMs × Utilization per wall
	// time of one step of the instance's processing (measured in the phase
	// before), so a restart's wall time stalls its tasks for that long in
	// simulated time, and an instance catches up at 1/Utilization times the
	// input rate. (Additive to version 1.)
	Utilization float64 `json:"utilization,omitempty"`
	// StepMs is the simulated time of one tick of the fleet. (Additive.)
	StepMs int64 `json:"step_ms,omitempty"`
	// Policy is the gate policy as YAML text, as used.
	Policy    string          `json:"policy"`
	Instances []FleetInstance `json:"instances"`
	Phases    []Phase         `json:"phases"`
	// Versions is the version mapping over time: every change of an
	// instance's model, in order.
	Versions []VersionChange `json:"versions"`
	Rollback *Rollback       `json:"rollback,omitempty"`
	// Decision states in words how the rehearsal ended and why.
	Decision  string `json:"decision"`
	ElapsedNs int64  `json:"elapsed_ns"`
}

// FleetInstance is one instance of the fleet and its failure domain.
type FleetInstance struct {
	ID     int `json:"id"`
	Domain int `json:"domain"`
	// Tasks are the task ids it owns at the start (sticky assignment).
	Tasks []int `json:"tasks"`
}

// Phase is one phase of the rehearsal: "baseline", "canary",
// "expand-domain-N", "final" or "rollback".
type Phase struct {
	Name      string `json:"name"`
	StartMs   int64  `json:"start_ms"` // simulated time
	EndMs     int64  `json:"end_ms"`
	ElapsedNs int64  `json:"elapsed_ns"` // wall time the phase took
	// Restarted are the instances restarted (on a new version, or rolled
	// back) at the phase's start.
	Restarted []int           `json:"restarted,omitempty"`
	Instances []InstancePhase `json:"instances"`
	// Gate is the gate evaluated at the phase's end; nil when not gated.
	Gate *GateRecord `json:"gate,omitempty"`
}

// InstancePhase is what one instance did during one phase.
type InstancePhase struct {
	Instance int    `json:"instance"`
	Model    string `json:"model"`
	// Samples are its samples over the phase, as for a run (Lifecycles,
	// Records and the counters continue across phases for an instance
	// that did not restart, and restart from 0 in a new process).
	Samples []Sample `json:"samples"`
	// Summary holds the phase's counters (differences over the phase) and
	// its restore figures.
	Summary Summary `json:"summary"`
	// Lag is how far the instance's tasks are behind the input, per step.
	Lag []LagPoint `json:"lag"`
	// MaxLagMs and MaxLagRecords are the worst of Lag.
	MaxLagMs      int64 `json:"max_lag_ms"`
	MaxLagRecords int64 `json:"max_lag_records"`
	// RestartNs is the wall time of the instance's restart at the phase's
	// start (from the stop of its old process to its tasks restored in the
	// new one), 0 when it did not restart.
	RestartNs int64 `json:"restart_ns,omitempty"`
	// StallMs is the simulated time RestartNs stalled the instance's tasks
	// (see Rehearsal.Utilization). (Additive to version 1.)
	StallMs int64 `json:"stall_ms,omitempty"`
}

// LagPoint is an instance's lag at one point in simulated time: records
// arrived but not yet processed, summed over its tasks, and the same in
// simulated time (the age of its oldest unprocessed record).
type LagPoint struct {
	AtMs     int64 `json:"at_ms"`
	Records  int64 `json:"records"`
	BehindMs int64 `json:"behind_ms"`
}

// GateRecord is a gate's evaluation: candidate instances against baseline
// instances over the same window.
type GateRecord struct {
	Phase      string            `json:"phase"`
	Candidates []int             `json:"candidates"`
	Baselines  []int             `json:"baselines"`
	Checks     []GateCheckRecord `json:"checks"`
	Outcome    string            `json:"outcome"` // pass, warn or fail
	Reason     string            `json:"reason"`
}

// GateCheckRecord is one check of a gate, in the metric's raw unit.
type GateCheckRecord struct {
	Name      string  `json:"name"`
	Metric    string  `json:"metric"`
	Unit      string  `json:"unit"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	// CandidateLow and CandidateHigh bound Candidate when it is an estimate
	// (equal to it for a count).
	CandidateLow  float64 `json:"candidate_low"`
	CandidateHigh float64 `json:"candidate_high"`
	Limit         float64 `json:"limit"`
	Outcome       string  `json:"outcome"` // pass, warn or fail
	Reason        string  `json:"reason"`
}

// Rollback is the evidence that rolling back restored a working fleet.
type Rollback struct {
	Instances []int           `json:"instances"`
	Checks    []RollbackCheck `json:"checks"`
	Verified  bool            `json:"verified"` // every check passed
}

// RollbackCheck is one verification after a rollback, e.g. "old version
// opens the new version's state", "changelog offsets preserved", "no record
// lost", "outputs equal the reference replay".
type RollbackCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// VersionChange is one instance moving from one model to another.
type VersionChange struct {
	AtMs     int64  `json:"at_ms"`
	Instance int    `json:"instance"`
	From     string `json:"from"` // "" when the instance first starts
	To       string `json:"to"`
	Phase    string `json:"phase"`
}
