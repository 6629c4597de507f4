// Package goengine is the Go engine: each ownership model re-implemented on
// RocksDB through grocksdb (package lifecycle), run in a child process of
// the harness's process protocol. Engine (engine.go) is its engine.Engine:
// a re-exec of this binary that honours every scenario field. RunChild is
// the child's whole job: it reads the harness.Job, executes package
// workload's op stream on a Topology (one model's tasks and stores through
// stream time: topology.go; a step's writes, commits and rebalances: step.go;
// opens, restores and verification: restore.go; the changelog files:
// changelogs.go; the op stream's executor: ops.go; the store slots and the
// restores' durations: slotstore.go, restorelog.go) and streams its samples
// (run.go's recorder; RocksDB's own per-DB figures, rocksdbfigures.go) as
// harness.Events. Another driver steps a Topology task
// by task through StartChild and the methods in topology_tasks.go, as
// package fleet's instances do, and makes some of its choices through Hooks
// (the records written and their values, the changelog partition a store
// commits, each record written).
//
// Imports run one way: goengine imports harness, fleet imports goengine,
// never the reverse.
package goengine
