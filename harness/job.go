// Package harness drives a scenario's topology through time: each ownership
// model runs in a child process of its own (a re-exec of the same binary),
// one after another, so that one model's leaked memory never sits under
// another's baseline. The parent collects what the children stream back.
//
// The child side (RunChild) builds the stores with package lifecycle, takes
// memory samples with package measure and streams them as JSON lines; the code
// under test never sees the instruments.
package harness

import (
	"math"
	"time"

	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/scenarios"
)

// Job is what the parent hands one child: the resolved scenario, the model to
// run and where its state may live.
type Job struct {
	Scenario scenarios.Scenario `json:"scenario"`
	Model    string             `json:"model"`
	Seed     int64              `json:"seed"`
	StateDir string             `json:"state_dir"` // the child creates and removes everything under it
}

// Event is one JSON line a child streams to its parent. Exactly one field is set.
type Event struct {
	Sample  *measure.Sample `json:"sample,omitempty"`
	Info    *ChildInfo      `json:"info,omitempty"`
	Summary *Summary        `json:"summary,omitempty"`
}

// ChildInfo is what a child says about itself before its first lifecycle.
type ChildInfo struct {
	PID            int    `json:"pid"`
	RocksDBVersion string `json:"rocksdb_version"` // read from the library's own LOG header
	Allocator      string `json:"allocator"`
}

// Summary is a model run's totals, sent once by the child at its end.
type Summary struct {
	Model       string `json:"model"`
	Interrupted bool   `json:"interrupted"`
	// StoppedEarly: the parent said the verdict was settled (--until-verdict).
	StoppedEarly bool  `json:"stopped_early"`
	Steps        int64 `json:"steps"`
	Lifecycles   int64 `json:"lifecycles"`
	FailedCloses int64 `json:"failed_closes"`
	InitFailures int64 `json:"init_failures"`
	Records      int64 `json:"records"`
	Rebalances   int64 `json:"rebalances"`
	// TaskErrors are errors that escaped a store to its task, e.g. a reopen
	// refused because a pinned DB still holds the path's LOCK.
	TaskErrors    int64            `json:"task_errors"`
	TaskErrorList []string         `json:"task_error_examples,omitempty"` // the first few, in words
	RecordsLost   int64            `json:"records_lost"`
	Verified      int64            `json:"records_verified"`
	Restore       RestoreStats     `json:"restore"`
	PinnedDBs     int64            `json:"pinned_dbs"`
	LedgerAtEnd   map[string]int64 `json:"ledger_at_end"`
	ReleasedLate  map[string]int64 `json:"released_late"`
	ElapsedNs     int64            `json:"elapsed_ns"`
	Error         string           `json:"error,omitempty"` // a failure that ended the model's run early
}

// RestoreStats summarises restores (wipe, reopen and changelog replay) of
// stores whose last close was unclean under exactly-once. Nanoseconds.
type RestoreStats struct {
	Count int64 `json:"count"`
	P50Ns int64 `json:"p50_ns"`
	// P50LowNs and P50HighNs are a distribution-free 95% interval for the
	// median (order statistics of Binomial(n, ½)); zero with fewer than 6
	// restores, where no such interval exists.
	P50LowNs  int64 `json:"p50_low_ns"`
	P50HighNs int64 `json:"p50_high_ns"`
	MaxNs     int64 `json:"max_ns"`
	Records   int64 `json:"records"` // records replayed
}

func restoreStats(durations []time.Duration, records int64) RestoreStats {
	rs := RestoreStats{Count: int64(len(durations)), Records: records}
	if len(durations) == 0 {
		return rs
	}
	sorted := append([]time.Duration(nil), durations...)
	sortDurations(sorted)
	rs.P50Ns = int64(sorted[(len(sorted)-1)/2])
	rs.MaxNs = int64(sorted[len(sorted)-1])
	if j := medianRank(len(sorted), 0.025); j > 0 {
		rs.P50LowNs, rs.P50HighNs = int64(sorted[j-1]), int64(sorted[len(sorted)-j])
	}
	return rs
}

// medianRank is the largest rank j (1-based) with P(Binomial(n, ½) < j) ≤ a,
// so that [x(j), x(n−j+1)] covers the median with probability ≥ 1 − 2a; 0 when
// n is too small for any.
func medianRank(n int, a float64) int {
	cdf, j := 0.0, 0
	for k := 0; k < n; k++ {
		// P(Bin = k) = C(n, k) / 2^n, via log-gamma to stay finite.
		lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
		cdf += math.Exp(lg(n) - lg(k) - lg(n-k) - float64(n)*math.Ln2)
		if cdf > a {
			break
		}
		j = k + 1
	}
	return j
}
