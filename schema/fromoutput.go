package schema

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rocksleak/rocksleak/scenarios"
)

// FromOutput builds a Result from a harness output.
func FromOutput(out *Output, sc scenarios.Scenario, prov Provenance) *Result {
	r := &Result{SchemaVersion: SchemaVersion, Tool: "rocksleak", Scenario: sc, Provenance: prov,
		Runs: map[string]*Run{}, Interrupted: out.Interrupted}
	r.Provenance.StartTime = out.Started.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	r.Provenance.EndTime = out.Ended.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	r.Provenance.ScenarioDigest = sc.Digest()
	var versions, faults []string
	for _, mr := range out.Runs {
		r.Models = append(r.Models, mr.Model)
		run := &Run{ChildPID: mr.Info.PID, Allocator: mr.Info.Allocator, RocksDBVersion: mr.Info.RocksDBVersion,
			Samples: len(mr.Samples)}
		if mr.Summary != nil {
			run.Summary = *mr.Summary
		} else {
			run.Summary = summaryFromLastSample(mr)
		}
		// The parent's word on the run (it carries the child's own error
		// when the child failed with one).
		run.Error = mr.Error
		run.Profile = mr.Profile
		run.StoppedByGuard, run.OutsideRSSPeak = mr.StoppedByGuard, mr.OutsideRSSPeak
		run.StoppedNoProgress = mr.StoppedNoProgress
		if v := mr.Info.RocksDBVersion; v != "" {
			if !slices.Contains(versions, v) {
				versions = append(versions, v)
			}
			r.Provenance.Allocator = mr.Info.Allocator
		}
		if n := len(mr.Samples); n > 0 {
			run.NativeHeapStart, run.NativeHeapEnd = mr.Samples[0].NativeHeap, mr.Samples[n-1].NativeHeap
			run.RSSStart, run.RSSEnd = mr.Samples[0].RSS, mr.Samples[n-1].RSS
			run.GoHeapStart, run.GoHeapEnd = mr.Samples[0].GoHeap, mr.Samples[n-1].GoHeap
			run.RuntimeStart, run.RuntimeEnd = mr.Samples[0].RuntimeBytes, mr.Samples[n-1].RuntimeBytes
			run.RuntimeMallocStart, run.RuntimeMallocEnd = max(mr.Samples[0].RuntimeMalloc, 0), max(mr.Samples[n-1].RuntimeMalloc, 0)
			for _, s := range mr.Samples {
				run.RSSPeak = max(run.RSSPeak, s.RSS)
			}
		}
		run.StateLeft = mr.StateLeft
		if run.StorageFaults = storageFaultsOf(run, mr.FaultsSeen); run.StorageFaults != nil {
			faults = append(faults, StorageFaultLine(mr.Model, run.StorageFaults))
		}
		if mr.Error != "" {
			r.Errors = append(r.Errors, fmt.Sprintf("%s: %s", mr.Model, mr.Error))
		}
		if mr.StateLeft != "" {
			r.Errors = append(r.Errors, fmt.Sprintf("%s: state directory left behind: %s: remove it (rm -rf)", mr.Model, mr.StateLeft))
		}
		r.Runs[mr.Model] = run
	}
	// A storage fault fails the run whatever its verdict, and is said first.
	r.Errors = append(faults, r.Errors...)
	r.Provenance.RocksDBVersion = strings.Join(versions, ", ")
	switch {
	case out.Interrupted:
		r.Status = StatusInterrupted
	case len(r.Errors) > 0:
		r.Status = StatusFailed
	default:
		r.Status = StatusComplete
	}
	return r
}

// LedgerKinds is the sorted union of ledger kinds seen in the samples.
func LedgerKinds(runs []*ModelRun) []string {
	seen := map[string]bool{}
	for _, r := range runs {
		for _, s := range r.Samples {
			for k := range s.LiveNatives {
				seen[k] = true
			}
		}
	}
	kinds := make([]string, 0, len(seen))
	for k := range seen {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return kinds
}

// SamplesByModel returns each model's samples.
func SamplesByModel(out *Output) map[string][]Sample {
	m := map[string][]Sample{}
	for _, r := range out.Runs {
		m[r.Model] = r.Samples
	}
	return m
}

// AllSamples returns every model's samples in run order.
func AllSamples(out *Output) []Sample {
	var all []Sample
	for _, r := range out.Runs {
		all = append(all, r.Samples...)
	}
	return all
}
