// Package spec is the typed vocabulary of a run: ownership models and their
// fixes, leak semantics, fault kinds, allocators and run names; strings are
// parsed at the edge (scenario files, flags) and these types travel inside.
//
// It also states, once, the window segment-interval rule Kafka Streams
// derives from a retention period (SegmentIntervalMs).
//
// It is pure Go (no cgo) and imports nothing of the project.
package spec
