package goengine

import (
	"math"
	"time"

	"github.com/rocksleak/rocksleak/schema"
)

// restoreStats summarises restores (in the order they ended) that replayed
// records changelog records in all: count, median with its interval,
// maximum, and each restore's duration and records.
func restoreStats(restores []restoreEntry, records int64) schema.RestoreStats {
	rs := schema.RestoreStats{Count: int64(len(restores)), Records: records}
	if len(restores) == 0 {
		return rs
	}
	sorted := make([]time.Duration, len(restores))
	for i, e := range restores {
		sorted[i] = e.d
		rs.DurationsNs = append(rs.DurationsNs, int64(e.d))
		rs.RecordsEach = append(rs.RecordsEach, e.records)
	}
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

// restoreStats summarises the run's restores; it reads their durations and
// records back from their file (see durationLog), so call it once the run is
// measured.
func (t *Topology) restoreStats() schema.RestoreStats {
	d, err := t.restoreLog.since(0)
	if err != nil {
		t.logFailed(err)
	}
	rs := restoreStats(d, t.restored)
	rs.Count = t.restoreLog.count()
	if int64(len(rs.DurationsNs)) != rs.Count {
		rs.DurationsNs, rs.RecordsEach = nil, nil // the log could not be read back whole
	}
	rs.SegmentLifecycles = t.restoreLifecycles
	return rs
}
