package gate

import (
	"errors"
	"fmt"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/measure/stats"
	"github.com/rocksleak/rocksleak/schema"
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

type metric struct {
	unit     string
	estimate bool // a slope with a 95% interval
	read     func(*schema.Run) (Quantity, error)
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
}

func perLifecycle(f schema.SignalFit) stats.Estimate { return f.PerLifecycle }
func perMillion(f schema.SignalFit) stats.Estimate   { return f.PerMillionRecords }

func slope(signal, unit string, pick func(schema.SignalFit) stats.Estimate) metric {
	return metric{unit: unit, estimate: true, read: func(r *schema.Run) (Quantity, error) {
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

func restore(get func(*schema.Run) int64) metric {
	return metric{unit: UnitNanoseconds, read: func(r *schema.Run) (Quantity, error) {
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
	return metric{unit: UnitNanoseconds, read: func(r *schema.Run) (Quantity, error) {
		rs := r.Restore
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
	return metric{unit: unit, read: func(r *schema.Run) (Quantity, error) { return exact(float64(get(r))), nil }}
}

// MetricUnit returns a metric's unit, or "" for an unknown metric.
func MetricUnit(name string) string { return metrics[name].unit }
