package gate

import (
	"errors"
	"fmt"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// Units of the metrics, as they appear in reports and JSON.
const (
	UnitBytesPerLifecycle      = "bytes/lifecycle"
	UnitBytesPerMillionRecords = "bytes/1M records"
	UnitFDsPerLifecycle        = "fds/lifecycle"
	UnitNanoseconds            = "ns"
	UnitCount                  = "count"
)

// Quantity is one side's value of a metric. Estimates carry their 95%
// interval [Low, High]; exact metrics have Low = High = Value and
// Interval false.
type Quantity struct {
	Value    float64 `json:"value"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Interval bool    `json:"interval"`
}

func exact(v float64) Quantity { return Quantity{Value: v, Low: v, High: v} }

// Subject is one side of a check: a run's figures, and the figures a
// single run does not have (an upgrade rehearsal's instances have them).
type Subject struct {
	// Run holds the slopes (Fits, from the Total fits), the restore times
	// and the counters.
	Run *schema.Run
	// Lag is the subject's consumer lag; nil when the subject is not one
	// that consumes a stream at a fixed rate (a result.json's run): a lag
	// check on it is not applicable.
	Lag *Lag
}

// Lag is how far a subject fell behind its input.
type Lag struct {
	// Points is how many lag readings MaxBehindNs is the worst of; 0 means
	// lag was expected but not measured (the check warns).
	Points int
	// MaxBehindNs is the largest age of the oldest unprocessed record, in
	// nanoseconds of simulated (stream) time.
	MaxBehindNs int64
}

// RunSubject is a result.json run as a Subject (no lag).
func RunSubject(r *schema.Run) Subject { return Subject{Run: r} }

type metric struct {
	unit     string
	estimate bool // a slope with a 95% interval
	read     func(Subject) (Quantity, error)
}

// metrics is the catalogue of what a check can compare. Slopes come from the
// Total fits (growth per lifecycle at the run's failure rate, failed closes
// included).
var metrics = map[string]metric{
	"native_growth_per_lifecycle":       slope(analysis.SignalNativeHeap, UnitBytesPerLifecycle, perLifecycle),
	"rss_growth_per_lifecycle":          slope(analysis.SignalRSS, UnitBytesPerLifecycle, perLifecycle),
	"fd_growth_per_lifecycle":           slope(analysis.SignalFDs, UnitFDsPerLifecycle, perLifecycle),
	"native_growth_per_million_records": slope(analysis.SignalNativeHeap, UnitBytesPerMillionRecords, perMillion),
	"rss_growth_per_million_records":    slope(analysis.SignalRSS, UnitBytesPerMillionRecords, perMillion),
	"restore_time_p50":                  restoreMedian(),
	"restore_time_max":                  restore(func(r *schema.Run) int64 { return r.Restore.MaxNs }),
	"task_errors":                       count(UnitCount, func(r *schema.Run) int64 { return r.TaskErrors }),
	"records_lost":                      count(UnitCount, func(r *schema.Run) int64 { return r.RecordsLost }),
	"pinned_dbs":                        count(UnitCount, func(r *schema.Run) int64 { return r.PinnedDBs }),
	"init_failures":                     count(UnitCount, func(r *schema.Run) int64 { return r.InitFailures }),
	"live_natives_at_end": count(UnitCount, func(r *schema.Run) int64 {
		var n int64
		for _, v := range r.LedgerAtEnd {
			n += v
		}
		return n
	}),
	"consumer_lag_max": consumerLag(),
}

func perLifecycle(f schema.SignalFit) stats.Estimate { return f.PerLifecycle }
func perMillion(f schema.SignalFit) stats.Estimate   { return f.PerMillionRecords }

func slope(signal, unit string, pick func(schema.SignalFit) stats.Estimate) metric {
	return metric{unit: unit, estimate: true, read: func(s Subject) (Quantity, error) {
		r := s.Run
		f, ok := r.Fits[signal]
		if !ok {
			return Quantity{}, fmt.Errorf("no %s fit in the result (the model produced no samples?)", signal)
		}
		if f.Total == nil {
			return Quantity{}, fmt.Errorf("the %s fit has no total (lifecycles-only) fit", signal)
		}
		e := pick(*f.Total)
		if !e.Valid {
			return Quantity{}, fmt.Errorf("the %s estimate has no valid interval (%d of %d samples used)",
				signal, f.Total.SamplesUsed, f.Total.Samples)
		}
		return Quantity{Value: e.Value, Low: e.Low, High: e.High, Interval: true}, nil
	}}
}

// errNoData marks a metric the run did not measure (a restore time without
// restores): the check warns instead of failing or passing.
var errNoData = errors.New("not measured")

// errNotApplicable marks a metric the subject cannot have (consumer lag of a
// result.json's run, which reads no stream): the check is left out of the
// decision and listed as not applicable.
var errNotApplicable = errors.New("not applicable")

// consumerLag is the worst consumer lag, in nanoseconds of simulated time:
// the age of the oldest record not yet processed (0 when never behind).
func consumerLag() metric {
	return metric{unit: UnitNanoseconds, read: func(s Subject) (Quantity, error) {
		switch {
		case s.Lag == nil:
			return Quantity{}, fmt.Errorf("%w: a run of a model reads no stream, so it has no consumer lag (an upgrade rehearsal's instances have one)", errNotApplicable)
		case s.Lag.Points == 0:
			return Quantity{}, fmt.Errorf("%w: no lag readings", errNoData)
		}
		return exact(float64(s.Lag.MaxBehindNs)), nil
	}}
}

func restore(get func(*schema.Run) int64) metric {
	return metric{unit: UnitNanoseconds, read: func(s Subject) (Quantity, error) {
		r := s.Run
		if r.Restore.Count == 0 {
			return Quantity{}, fmt.Errorf("%w: no restores in the run", errNoData)
		}
		return exact(float64(get(r))), nil
	}}
}

// restoreMedian is the median restore time, with its distribution-free 95%
// interval when the run had enough restores for one (restore times are wall
// time: a loaded machine moves them, so a lone median must not fail a gate).
func restoreMedian() metric {
	return metric{unit: UnitNanoseconds, read: func(s Subject) (Quantity, error) {
		rs := s.Run.Restore
		if rs.Count == 0 {
			return Quantity{}, fmt.Errorf("%w: no restores in the run", errNoData)
		}
		if rs.P50LowNs > 0 && rs.P50HighNs >= rs.P50LowNs {
			return Quantity{Value: float64(rs.P50Ns), Low: float64(rs.P50LowNs), High: float64(rs.P50HighNs), Interval: true}, nil
		}
		return exact(float64(rs.P50Ns)), nil
	}}
}

func count(unit string, get func(*schema.Run) int64) metric {
	return metric{unit: unit, read: func(s Subject) (Quantity, error) { return exact(float64(get(s.Run))), nil }}
}

// MetricUnit returns a metric's unit, or "" for an unknown metric.
func MetricUnit(name string) string { return metrics[name].unit }
