// Package workload is the scenario's workload as both executors see it: the
// record keys and values (RecordValue, which the Go engine's topology and the
// JVM child compute alike; testdata/values.json holds known answers both
// sides assert).
//
// It is pure Go (no cgo).
package workload
