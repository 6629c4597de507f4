// Package fleet is the upgrade rehearsal (rocksleak rehearse): a fleet of
// instances, each a child process owning some of the scenario's tasks over
// state that outlives it, rolled from one model to another in phases
// (baseline, canary, expansions per failure domain, final), each phase gated,
// a failed gate rolled back and the rollback verified.
//
// Rehearse is the parent (fleet.go: the phases and ticks of simulated time;
// config.go: RehearsalConfig and its validation; instances.go: starting and
// restarting instances; assign.go: the sticky task assignment; rollback.go;
// proc.go: one instance's process). It returns a schema.Rehearsal whose Status says how
// the rehearsal ended, stops every child and removes the fleet's state and
// changelogs. RunInstance is an instance's child (child.go): it reads a Job,
// resumes its tasks on a harness topology (goengine.StartChild) and runs the
// parent's commands, streaming Events. The binary's entry point calls it for
// InstanceArg, as it calls goengine.RunChild for a model's child.
//
// An instance's outputs (every record's value read back right after its
// update) are hashed per task and compared with Reference, the parent's
// replay of the input in memory, without RocksDB (reference.go).
//
// Package fleet imports harness (the process protocol and the topology);
// harness never imports it.
package fleet
