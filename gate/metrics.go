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
	// events marks a count of discrete events (errors, lost records,
	// pinned stores, live native objects): exact, with no sampling noise
	// to tell from a change, so a count above its limit fails.
	events bool
	read   func(Subject) (Quantity, error)
	// paired, when set, reads both sides of a ratio check together (see
	// pairing); read is used when it cannot pair them.
	paired func(base, cand Subject) pairing
}

// metrics is the catalogue of what a check can compare. Slopes come from the
// Total fits (growth per lifecycle at the run's failure rate, failed closes
// included).
var metrics = withSlopes(map[string]metric{
	"restore_time_p50": restoreMedian(),
	"restore_time_max": restore(func(r *schema.Run) int64 { return r.Restore.MaxNs }),
	"task_errors":      count(UnitCount, func(r *schema.Run) int64 { return r.TaskErrors }),
	"records_lost":     recordsLost(),
	"pinned_dbs":       count(UnitCount, func(r *schema.Run) int64 { return r.PinnedDBs }),
	"init_failures":    count(UnitCount, func(r *schema.Run) int64 { return r.InitFailures }),
	"live_natives_at_end": count(UnitCount, func(r *schema.Run) int64 {
		var n int64
		for _, v := range r.LedgerAtEnd {
			n += v
		}
		return n
	}),
	"consumer_lag_max": consumerLag(),
})

// withSlopes adds to m the slope metrics of every signal whose entry in
// analysis' registry names its gate metrics (SignalInfo.Gate):
// "<prefix>_growth_per_lifecycle" in the signal's unit per lifecycle and,
// where asked, "<prefix>_growth_per_million_records" (bytes only).
func withSlopes(m map[string]metric) map[string]metric {
	for _, d := range analysis.Registered() {
		if d.Gate == nil {
			continue
		}
		m[d.Gate.Prefix+"_growth_per_lifecycle"] = slope(d.Key, d.Unit+"/lifecycle", perLifecycle)
		if d.Gate.PerMillion {
			m[d.Gate.Prefix+"_growth_per_million_records"] = slope(d.Key, d.Unit+"/1M records", perMillion)
		}
	}
	return m
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

func count(unit string, get func(*schema.Run) int64) metric {
	return metric{unit: unit, events: true, read: func(s Subject) (Quantity, error) { return exact(float64(get(s.Run))), nil }}
}

// recordsLost is the run's records lost, not measured (the check warns) when
// the run says so (schema.Summary.RecordsNotMeasured: a JVM child, or a child
// killed before its summary), never 0 by default.
func recordsLost() metric {
	return metric{unit: UnitCount, read: func(s Subject) (Quantity, error) {
		if why := s.Run.RecordsNotMeasured; why != "" {
			return Quantity{}, fmt.Errorf("%w: %s", errNoData, why)
		}
		return exact(float64(s.Run.RecordsLost)), nil
	}}
}

// MetricUnit returns a metric's unit, or "" for an unknown metric.
func MetricUnit(name string) string { return metrics[name].unit }

// pairing is both sides of a ratio check read together. With ok, b and c
// replace the sides' own values: c is the candidate on the baseline's scale
// (for restore time, the baseline's median restore time at the candidate's
// speed), with an interval from both sides' own observations when there are
// enough; basis says what they rest on. Without an interval on c (or without
// ok) the check has no noise model, and why says so for people.
type pairing struct {
	b, c       Quantity
	basis, why string
	ok         bool
}

// pairSides reads a paired metric's sides together (m.paired): the
// baseline's and candidate's quantities to judge, what they rest on (basis)
// and, when the candidate has no interval, why (unpaired), each for the
// reason. The paired interval is the check's noise model. Without it the
// candidate's own interval would treat the baseline's value as exact, so the
// candidate's value stands alone and, above the limit, warns.
func pairSides(m metric, base, cand Subject, bq, cq Quantity) (b, c Quantity, basis, unpaired string) {
	pr := m.paired(base, cand)
	b, c = bq, exact(cq.Value)
	if pr.ok {
		b, c = pr.b, pr.c
	}
	if pr.basis != "" {
		basis = " (" + pr.basis + ")"
	}
	if !c.Interval {
		unpaired = " (" + pr.why + ")"
	}
	return b, c, basis, unpaired
}
