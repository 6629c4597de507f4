package schema

import (
	"fmt"
	"strings"
)

// Storage faults: errors of the state disk's file system that RocksDB passes
// on in its status text (strerror's words), in either engine.
const (
	FaultENOSPC = "ENOSPC"
	FaultEROFS  = "EROFS"
	FaultEIO    = "EIO"
)

// storageFaultTexts are strerror's texts of the storage faults, as RocksDB's
// IOError statuses (and RocksJava's RocksDBException) quote them.
var storageFaultTexts = []struct{ kind, text string }{
	{FaultENOSPC, "No space left on device"},
	{FaultEROFS, "Read-only file system"},
	{FaultEIO, "Input/output error"},
}

// StorageFaults lists the storage faults msg names, in a fixed order; none
// for an error that is not one (an injected failure, a held LOCK).
func StorageFaults(msg string) []string {
	var kinds []string
	for _, f := range storageFaultTexts {
		if strings.Contains(msg, f.text) {
			kinds = append(kinds, f.kind)
		}
	}
	return kinds
}

// TaskErrorEvent is a child's word, as it happens, of a task error its
// parent must know even if no summary follows (a child killed while it
// closes its stores on a failing disk): the Go child sends its first task
// error, and the first one naming each storage fault.
type TaskErrorEvent struct {
	Error  string   `json:"error"`
	Faults []string `json:"storage_faults,omitempty"`
}

// StorageFaultWords is strerror's text of a storage fault (FaultENOSPC: "No
// space left on device"), "" for another kind.
func StorageFaultWords(kind string) string {
	for _, f := range storageFaultTexts {
		if f.kind == kind {
			return f.text
		}
	}
	return ""
}

// StorageFaultTally counts errors by the storage faults they name (Summary.StorageFaults).
type StorageFaultTally map[string]int64

// Add counts msg once per storage fault it names.
func (t StorageFaultTally) Add(msg string) {
	for _, k := range StorageFaults(msg) {
		t[k]++
	}
}

// storageFaultsOf is what a model run's errors show of the storage faults:
// the child's own counts (Summary.StorageFaults, every error it met), else
// at least the count of each task error example that names one, and one for
// an error that ended the run naming one (a JVM child, or a child whose
// summary never came), and one for each the child named as it happened
// (seenLive: ModelRun.FaultsSeen).
func storageFaultsOf(run *Run, seenLive []string) StorageFaultTally {
	t := StorageFaultTally{}
	for _, k := range seenLive {
		t[k] = max(t[k], 1)
	}
	for k, v := range run.StorageFaults {
		t[k] = v
	}
	seen := StorageFaultTally{}
	for i, e := range run.TaskErrorList {
		n := int64(1)
		if i < len(run.TaskErrorCounts) {
			n = run.TaskErrorCounts[i]
		}
		for _, k := range StorageFaults(e) {
			seen[k] += n
		}
	}
	for _, k := range StorageFaults(run.Error) {
		seen[k] = max(seen[k], 1)
	}
	for k, v := range seen {
		t[k] = max(t[k], v)
	}
	if len(t) == 0 {
		return nil
	}
	return t
}

// StorageFaultLine says in one line that model's run met storage faults, so
// that its verdict is not read as the scenario's: each fault with the count
// of errors known to name it (a lower bound when the child died before its
// summary).
func StorageFaultLine(model string, t StorageFaultTally) string {
	var parts []string
	for _, f := range storageFaultTexts {
		if n := t[f.kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s) ×%d", f.kind, f.text, n))
		}
	}
	return fmt.Sprintf("%s: STATE DISK FAULT: RocksDB returned %s; this run measured a store on a failing disk, not the scenario: its verdict is not the scenario's (see task_error_examples in result.json)",
		model, strings.Join(parts, ", "))
}

// summaryFromLastSample is the summary of a child that sent none (it was
// killed, or crashed): its counts and its ledger as its last sample had
// them, marked (FromLastSample), records lost not measured. No samples: the
// model's name only.
func summaryFromLastSample(mr *ModelRun) Summary {
	sum := Summary{Model: mr.Model}
	if len(mr.Samples) == 0 {
		return sum
	}
	s := mr.Samples[len(mr.Samples)-1]
	sum.FromLastSample = true
	sum.Lifecycles, sum.FailedCloses, sum.InitFailures = s.Lifecycles, s.FailedCloses, s.InitFailures
	sum.TaskErrors, sum.Records, sum.ElapsedNs = s.TaskErrors, s.Records, s.ElapsedNs
	sum.Restore = RestoreStats{Count: s.Restores, Records: s.RestoredRecords}
	sum.LedgerAtEnd = make(map[string]int64, len(s.LiveNatives))
	for k, v := range s.LiveNatives {
		sum.LedgerAtEnd[k] = v
	}
	sum.RecordsNotMeasured = "the child ended without its summary; the counts are its last sample's"
	if mr.FirstTaskError != "" {
		sum.TaskErrorList = []string{mr.FirstTaskError} // no count: the child kept it
	}
	return sum
}
