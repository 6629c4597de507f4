package gate

import (
	"fmt"
	"math"
	"time"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// restoreMedian is the median restore time. Restore times are wall time,
// and a restore replays its store's whole changelog, so a restore late in a
// run takes longer than an early one: two runs' medians compare their
// restore schedules as much as their speed. In a ratio check the two runs
// are compared by restore time per record replayed (restoreSpeed): the
// candidate's value is the baseline's median restore time at the candidate's
// speed, with a bootstrap interval when both runs recorded each restore's
// records. Without durations on a side (the JVM engine) the medians stand
// alone, and above the limit the check warns. Against an absolute limit the
// candidate's distribution-free 95% interval for its median is its noise
// model, when it had enough restores for one.
func restoreMedian() metric {
	return metric{unit: UnitNanoseconds, paired: restoreSpeed, read: func(s Subject) (Quantity, error) {
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

// restoreSpeed compares the two runs' restore time per record replayed, r =
// (Σ durations / Σ records) of the candidate over the baseline's: b is the
// baseline's median restore time, c = b × r. When both runs recorded each
// restore's records (RecordsEach), at least stats.MinRatioSample restores a
// side that replayed records, c has the 95% percentile-bootstrap interval of
// r from each run's own restores (stats.RateRatio; restores that replayed
// nothing are left out: they have no speed). Otherwise r comes from the
// runs' totals alone (exact: durations_ns and records), without an interval.
// ok is false when a side has no durations or replayed no records.
func restoreSpeed(base, cand Subject) pairing {
	br, cr := base.Run.Restore, cand.Run.Restore
	if !hasDurations(br) || !hasDurations(cr) {
		return pairing{why: "no restore durations and records on a side to compare restore time per record replayed"}
	}
	bm := stats.Median(nsToFloat(br.DurationsNs))
	p := pairing{b: exact(bm), ok: true}
	bt, bn, bEach := restoresWithRecords(br)
	ct, cn, cEach := restoresWithRecords(cr)
	bRate, cRate := totalRate(br), totalRate(cr)
	rates := fmt.Sprintf("candidate %s, baseline %s a record", fmtRate(cRate), fmtRate(bRate))
	if e := stats.RateRatio(bt, bn, ct, cn, 0.95); bEach && cEach && e.Valid {
		p.c = Quantity{Value: bm * e.Value, Low: bm * e.Low, High: bm * e.High, Interval: true}
		p.basis = fmt.Sprintf("restore time per record replayed ×%.2f [%.2f, %.2f] (%s), bootstrap of %d baseline and %d candidate restores; "+
			"the candidate's value is the baseline's median restore time at the candidate's speed", e.Value, e.Low, e.High,
			rates, len(bt), len(ct))
		return p
	}
	r := cRate / bRate
	p.c = exact(bm * r)
	p.basis = fmt.Sprintf("restore time per record replayed ×%.2f (%s, from the runs' totals); the candidate's value is the baseline's "+
		"median restore time at the candidate's speed", r, rates)
	if bEach && cEach {
		p.why = fmt.Sprintf("too few restores with records on a side for an interval: at least %d each", stats.MinRatioSample)
	} else {
		p.why = "a result without each restore's records (restore.records_each, written since 2026-12-06) has no interval for it"
	}
	return p
}

// hasDurations reports whether rs holds every restore's duration and
// records replayed in all.
func hasDurations(rs schema.RestoreStats) bool {
	return rs.Count > 0 && int64(len(rs.DurationsNs)) == rs.Count && rs.Records > 0
}

// restoresWithRecords is each restore of rs that replayed records: its
// duration t and records n; each is false when rs did not record every
// restore's records.
func restoresWithRecords(rs schema.RestoreStats) (t, n []float64, each bool) {
	if len(rs.RecordsEach) != len(rs.DurationsNs) {
		return nil, nil, false
	}
	for i, k := range rs.RecordsEach {
		if k > 0 {
			t, n = append(t, float64(rs.DurationsNs[i])), append(n, float64(k))
		}
	}
	return t, n, true
}

// totalRate is rs's restore time per record replayed, in nanoseconds: all
// its restores' durations over all their records (see hasDurations).
func totalRate(rs schema.RestoreStats) float64 {
	var sum float64
	for _, d := range rs.DurationsNs {
		sum += float64(d)
	}
	return sum / float64(rs.Records)
}

// fmtRate formats nanoseconds per record.
func fmtRate(ns float64) string {
	if ns >= 1000 && ns < math.MaxInt64 {
		return time.Duration(ns).Round(10 * time.Nanosecond).String()
	}
	return fmt.Sprintf("%.3g ns", ns)
}

func nsToFloat(ns []int64) []float64 {
	out := make([]float64, len(ns))
	for i, v := range ns {
		out[i] = float64(v)
	}
	return out
}
