// Package results turns what a run produced into files: result.json (the
// schema other commands read), samples.csv, provenance, and later the report,
// plots, gate and capacity plan. It reads what the harness, measure and
// scenarios packages produce and never drives a run itself.
package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/scenarios"
)

// SchemaVersion is the version of result.json this package writes and reads.
const SchemaVersion = 1

// Run statuses.
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
)

// Result is the content of result.json. Numbers are raw: bytes, nanoseconds,
// counts.
type Result struct {
	SchemaVersion int                `json:"schema_version"`
	Tool          string             `json:"tool"`
	Status        string             `json:"status"` // complete, interrupted or failed
	Interrupted   bool               `json:"interrupted"`
	Errors        []string           `json:"errors,omitempty"`
	Scenario      scenarios.Scenario `json:"scenario"`
	Models        []string           `json:"models"` // in run order
	Provenance    Provenance         `json:"provenance"`
	Runs          map[string]*Run    `json:"runs"`
	// Floors are the absolute per-lifecycle floors the verdicts used.
	Floors      VerdictFloors `json:"verdict_floors"`
	Comparisons []Comparison  `json:"comparisons,omitempty"`
	Attribution []Attribution `json:"attribution,omitempty"`
	Calibration []Calibration `json:"calibration,omitempty"`
}

// Provenance says where and with what a result was produced.
type Provenance struct {
	RocksDBVersion  string `json:"rocksdb_version"` // from the library at run time
	GrocksdbVersion string `json:"grocksdb_version"`
	GoVersion       string `json:"go_version"`
	GitCommit       string `json:"git_commit"`
	Host            string `json:"host"`
	OS              string `json:"os"`
	Arch            string `json:"arch"`
	CPUs            int    `json:"cpus"`
	Seed            int64  `json:"seed"`
	ScenarioDigest  string `json:"scenario_digest"`
	Allocator       string `json:"allocator"`
	StartTime       string `json:"start_time"` // RFC 3339, UTC
	EndTime         string `json:"end_time"`
	Command         string `json:"command,omitempty"`
}

// Run is one model's results.
type Run struct {
	harness.Summary
	ChildPID int `json:"child_pid"`
	// Allocator is the C allocator the child ran with (glibc, or jemalloc
	// preloaded), as its sampler detected it.
	Allocator string `json:"allocator"`
	Samples   int    `json:"samples"`
	Error     string `json:"error,omitempty"`
	// Change between the first and the last sample. Bytes.
	NativeHeapStart int64 `json:"native_heap_start"`
	NativeHeapEnd   int64 `json:"native_heap_end"`
	RSSStart        int64 `json:"rss_start"`
	RSSEnd          int64 `json:"rss_end"`
	// Fits by signal (native_heap, rss, go_heap, fds) and the verdict.
	Fits    map[string]SignalFit `json:"fits,omitempty"`
	Verdict *Verdict             `json:"verdict,omitempty"`
	// Resident is the cost of one open store instance at steady state.
	Resident *Resident `json:"resident,omitempty"`
	// Sequential is set for runs with --until-verdict: when the native-heap
	// verdict and the verdict settled.
	Sequential *SequentialOutcome `json:"sequential,omitempty"`
}

// SequentialOutcome records the looks of a Sequential at which each verdict
// settled (nil: not settled before the run's stop condition).
type SequentialOutcome struct {
	Confidence float64 `json:"confidence"` // of each look's intervals
	MaxLooks   int     `json:"max_looks"`
	Looks      int     `json:"looks"`
	Native     *Look   `json:"native_heap,omitempty"`
	Verdict    *Look   `json:"verdict,omitempty"`
}

// Validate checks what every reader of a result relies on.
func (r *Result) Validate() error {
	var errs []error
	if r.SchemaVersion != SchemaVersion {
		errs = append(errs, fmt.Errorf("schema_version: %d, this rocksleak reads %d", r.SchemaVersion, SchemaVersion))
	}
	switch r.Status {
	case StatusComplete, StatusInterrupted, StatusFailed:
	default:
		errs = append(errs, fmt.Errorf("status: %q is not one of complete, interrupted, failed", r.Status))
	}
	if r.Runs == nil {
		errs = append(errs, errors.New("runs: missing"))
	}
	for _, m := range r.Models {
		if _, ok := r.Runs[m]; !ok {
			errs = append(errs, fmt.Errorf("runs.%s: missing for a listed model", m))
		}
	}
	return errors.Join(errs...)
}

// ErrBadResult marks a result file that cannot be used (unreadable, malformed,
// or of another schema); the CLI maps it to exit status 2.
var ErrBadResult = errors.New("bad result file")

// Read loads and validates a result.json.
func Read(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	r, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Parse decodes and validates the content of a result.json. Errors wrap
// ErrBadResult.
func Parse(b []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	for name, run := range r.Runs {
		if run == nil {
			return nil, fmt.Errorf("%w: runs.%s: null", ErrBadResult, name)
		}
	}
	return &r, nil
}

// FromOutput builds a Result from a harness output.
func FromOutput(out *harness.Output, sc scenarios.Scenario, prov Provenance) *Result {
	r := &Result{SchemaVersion: SchemaVersion, Tool: "rocksleak", Scenario: sc, Provenance: prov,
		Runs: map[string]*Run{}, Interrupted: out.Interrupted}
	r.Provenance.StartTime = out.Started.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	r.Provenance.EndTime = out.Ended.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	r.Provenance.ScenarioDigest = sc.Digest()
	for _, mr := range out.Runs {
		r.Models = append(r.Models, mr.Model)
		run := &Run{ChildPID: mr.Info.PID, Allocator: mr.Info.Allocator, Samples: len(mr.Samples), Error: mr.Error}
		if mr.Summary != nil {
			run.Summary = *mr.Summary
		} else {
			run.Summary.Model = mr.Model
		}
		if mr.Info.RocksDBVersion != "" {
			r.Provenance.RocksDBVersion = mr.Info.RocksDBVersion
			r.Provenance.Allocator = mr.Info.Allocator
		}
		if n := len(mr.Samples); n > 0 {
			run.NativeHeapStart, run.NativeHeapEnd = mr.Samples[0].NativeHeap, mr.Samples[n-1].NativeHeap
			run.RSSStart, run.RSSEnd = mr.Samples[0].RSS, mr.Samples[n-1].RSS
		}
		if mr.Error != "" {
			r.Errors = append(r.Errors, fmt.Sprintf("%s: %s", mr.Model, mr.Error))
		}
		r.Runs[mr.Model] = run
	}
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

// ledgerKinds is the sorted union of ledger kinds seen in the samples.
func ledgerKinds(runs []*harness.ModelRun) []string {
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
func SamplesByModel(out *harness.Output) map[string][]measure.Sample {
	m := map[string][]measure.Sample{}
	for _, r := range out.Runs {
		m[r.Model] = r.Samples
	}
	return m
}

// AllSamples returns every model's samples in run order.
func AllSamples(out *harness.Output) []measure.Sample {
	var all []measure.Sample
	for _, r := range out.Runs {
		all = append(all, r.Samples...)
	}
	return all
}
