// Package harness is the process protocol both engines speak: each
// ownership model runs in a child process of its own, one after another, so
// that one model's leaked memory never sits under another's baseline. The
// parent (Run) parses each run name once, refuses before any work what a
// model's engine cannot honour (package engine: its capabilities) or cannot
// start, hands each child a Job on its standard input, followed by package
// workload's op stream, and reads Events, JSON lines, from its file
// descriptor 3 (EventWriter writes them on the child's side); it watches the
// child's memory (Guard) and progress (Progress), stops it cleanly, and
// collects what it sent. Besides: the process limits and the state disk's
// preflight, heap-profile dumps (Profile, Profiler), the allocator-retention
// probe and the disk-full runs' parent side. testdata/protocol holds the
// protocol's golden files, which the Java child's tests read too.
//
// The engines are values of package engine's interface (Config.Engines):
// package engine/goengine (whose child's run loop imports harness) and
// package engine/jvm. harness imports neither.
package harness
