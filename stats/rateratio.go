package stats

import "math"

// RateRatio estimates the ratio of two rates, candidate over baseline, each
// a ratio of totals over one side's observations, Σ t / Σ n (restore time
// per record replayed: the restores' durations over the records they
// replayed), with a two-sided confidence interval at level (0.95 for 95%)
// from the percentile bootstrap: each resample draws a side's (t, n) pairs
// with replacement, as many as it has, and takes the ratio of the two
// resampled rates (see MedianRatio; the same fixed-seed resampling, so it
// is deterministic). The totals weigh each observation by its n, so the
// rate does not depend on how the observations' sizes fell: a run whose
// restores came late, each replaying a longer changelog, has longer
// restores but the same time per record. Valid is false when a side has
// fewer than MinRatioSample pairs, t and n of different lengths, or a t or
// n that is not positive and finite; SE and DF are not set (0).
func RateRatio(baseT, baseN, candT, candN []float64, level float64) Estimate {
	for _, s := range [][2][]float64{{baseT, baseN}, {candT, candN}} {
		if len(s[0]) < MinRatioSample || len(s[0]) != len(s[1]) || !allPositive(s[0]) || !allPositive(s[1]) {
			return Estimate{}
		}
	}
	rate := func(t, n []float64) func([]int) float64 {
		return func(idx []int) float64 {
			var st, sn float64
			for _, i := range idx {
				st += t[i]
				sn += n[i]
			}
			return st / sn
		}
	}
	return bootstrapRatio(len(baseT), len(candT), level, Rate(candT, candN)/Rate(baseT, baseN),
		rate(baseT, baseN), rate(candT, candN))
}

// Rate is Σ t / Σ n, NaN when Σ n is 0.
func Rate(t, n []float64) float64 {
	var st, sn float64
	for i := range t {
		st += t[i]
		sn += n[i]
	}
	if sn == 0 {
		return math.NaN()
	}
	return st / sn
}
