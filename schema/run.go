package schema

import (
	"time"

	"github.com/rocksleak/rocksleak/spec"
)

// ChildInfo is what a child says about itself before its first lifecycle.
type ChildInfo struct {
	PID            int            `json:"pid"`
	RocksDBVersion string         `json:"rocksdb_version"` // read from the library's own LOG header
	Allocator      spec.Allocator `json:"allocator"`
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
	// SegmentLifecycles is the number of window segments opened and closed
	// during the restores (all restores together): a window store restores
	// from stream time −1, so replaying retention plus
	// windowstore.changelog.additional.retention.ms of changelog creates and
	// expires segments as the restore's stream time advances. 0 for key-value
	// stores.
	SegmentLifecycles int64 `json:"segment_lifecycles"`
}

// Output is everything the children of a run streamed back (package harness produces it).
type Output struct {
	Started, Ended time.Time
	Interrupted    bool
	Runs           []*ModelRun
}

// ModelRun is one model's child process run.
type ModelRun struct {
	Model   string
	Info    ChildInfo
	Samples []Sample
	Summary *Summary
	// Error is set when the child failed: crashed, was killed, or ended
	// without a summary. The run's samples up to then are kept.
	Error string
	// StoppedByGuard says why the parent's memory guard stopped the child,
	// if it did (Error says so too).
	StoppedByGuard string
	// OutsideRSSPeak is the child's largest RSS seen from outside, bytes.
	OutsideRSSPeak int64
}
