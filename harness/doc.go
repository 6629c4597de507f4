// Package harness drives a scenario's topology through time: each ownership
// model runs in a child process of its own (a re-exec of the same binary),
// one after another, so that one model's leaked memory never sits under
// another's baseline. The parent collects what the children stream back.
//
// It has two parts, each in files of its own:
//
//   - The process protocol (job.go, event.go, parent.go, child.go, guard.go,
//     limits.go, diskpreflight.go, progress.go, profile.go, retention.go,
//     rocksdbfigures.go, jvm.go, diskfull.go, smallfs.go): the parent
//     (Run) hands each child a Job on its standard input and reads Events, JSON
//     lines, from its file descriptor 3; it watches the child's memory and
//     progress and stops it cleanly. The child side (RunChild) builds the
//     stores with package lifecycle, takes memory samples with package measure
//     and streams them; the code under test never sees the instruments.
//   - The topology (topology.go, ops.go, slotstore.go, restorelog.go): one
//     model's tasks and stores through stream time, their changelogs, restores
//     and reads back. RunChild drives it over the whole scenario (or executes
//     package workload's op stream on it); another driver steps it task by task
//     through StartChild and the methods in topology_tasks.go, as package
//     fleet's instances do, and makes some of its choices through Hooks (the
//     records written and their values, the changelog partition a store
//     commits, each record written).
//
// Imports run one way: package fleet imports harness, never the reverse.
package harness
