// Package lifecycle is the Go engine's store code: RocksDB state stores built,
// opened, written, closed and destroyed the way Kafka Streams' RocksDBStore,
// its timestamped, versioned and window variants, and its segments do, on the
// real RocksDB (Debian's 7.8.3 through grocksdb), under an ownership model
// (spec.Model: leaky, fixed, or each fix alone) that decides which native
// objects a close releases.
//
// Every native object a store creates is registered in the process's Ledger
// (one owner per object; natives.go is the one place they are created), so the
// ledger always knows what is still owned, what was released late by
// RocksJava's safety net and what pins a DB. Failures are injected as real
// RocksDB errors (Injector), never faked; a synthetic leak of known size
// (the synthetic_leak_bytes scenario field) calibrates the instrument.
//
// The package measures nothing itself: the samplers are package measure's and
// the process around a model is package harness's. It needs cgo.
package lifecycle
