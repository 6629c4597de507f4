// Package harness is the process protocol both engines speak: each
// ownership model runs in a child process of its own, one after another, so
// that one model's leaked memory never sits under another's baseline. The
// parent (Run) hands each child a Job on its standard input, followed by
// package workload's op stream, and reads Events, JSON lines, from its file
// descriptor 3 (EventWriter writes them on the child's side); it watches the
// child's memory (Guard) and progress (Progress), stops it cleanly, and
// collects what it sent. Besides: the process limits and the state disk's
// preflight, heap-profile dumps (Profile, Profiler), the allocator-retention
// probe, the disk-full runs' parent side, and the JVM engine's command line
// (JVM).
//
// The Go engine's child (the topology that executes the op stream on
// RocksDB, its samples) is package engine/goengine, which imports harness;
// harness does not import it.
package harness
