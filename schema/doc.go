// Package schema is the result schema: what the run half of rocksleak
// (packages measure and harness) produces and everything after the run
// (analysis, results, gate, plan) reads. It holds a memory sample and its CSV
// form, a model's run summary, child info and restore figures, and result.json
// (Result, Run, Provenance and the analysis figures stored in it) with Read,
// Parse and Validate; rehearsal.json (Rehearsal) and reliability.json
// (Reliability).
//
// It is pure Go (no cgo): a tool that only reads results links no RocksDB.
// Numbers are raw units: bytes, nanoseconds, counts.
package schema
