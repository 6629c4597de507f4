package harness

import (
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/userapp"
)

// Job is what the parent hands one child, as the first line of its standard
// input: the resolved scenario, the model to run and where its state may
// live. The same job goes to both engines' children (the Go child and the
// JVM child, engine/jvm/child); the op stream that may follow it is package
// workload's.
type Job struct {
	Scenario scenarios.Scenario `json:"scenario"`
	Model    string             `json:"model"` // the run name as given; samples carry it
	Seed     int64              `json:"seed"`
	StateDir string             `json:"state_dir"` // the child creates and removes everything under it
	// Ops is workload.OpsVersion when the schedule's op stream follows the
	// job on standard input (the parent writes it as the child reads), 0 when
	// nothing follows.
	Ops int `json:"ops,omitempty"`
	// RunName is Model parsed (by the parent, once): its base model, the
	// Kafka version a kafka-<version> model runs (the JVM child), whether
	// every lifecycle also leaks the scenario's synthetic_leak_bytes
	// (spec.SyntheticSuffix), whether the JVM child closes each RocksDB
	// object's defaultReadOptions_ right after Kafka closes the DB
	// (spec.ReadOptionsFixSuffix), and the C allocator the child runs under
	// ("glibc" or "jemalloc", preloaded by the parent: where the child reads
	// its native heap). Its fields are the job's top-level keys base_model,
	// kafka_version, synthetic, read_options_fix and allocator.
	spec.RunName
	// ChangelogDir is where the child keeps its stores' changelogs, outside
	// its own memory, as package changelog lays them out and encodes them
	// (changelog.Path(ChangelogDir, task, store)); the parent makes it and
	// removes it after the child. Set for every child; a Go child without
	// it keeps them under its StateDir. (A fleet instance's child sets it
	// itself to the fleet's root: package fleet.)
	ChangelogDir string `json:"changelog_dir,omitempty"`
	// Profile, when set, makes the child dump its heap (see Profile).
	Profile *ProfileJob `json:"profile,omitempty"`
	// DiskFull, when set, makes the child retry failing opens on a full
	// state directory (see RunDiskFull).
	DiskFull *DiskFullJob `json:"disk_full,omitempty"`
	// App, when set, makes a JVM child run the user's application instead
	// of the op stream (see App); no op stream follows the job.
	App *userapp.Job `json:"app,omitempty"`
}

// Event is one JSON line a child streams to its parent. Exactly one field is set.
type Event struct {
	Sample  *schema.Sample    `json:"sample,omitempty"`
	Info    *schema.ChildInfo `json:"info,omitempty"`
	Summary *schema.Summary   `json:"summary,omitempty"`
	// TaskError is a task error told as it happens (the Go child's first,
	// and the first naming each storage fault).
	TaskError *schema.TaskErrorEvent `json:"task_error,omitempty"`
}
