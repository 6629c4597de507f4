package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// MinRatioSample is the fewest observations on each side MedianRatio
// estimates an interval from: with fewer, a resampled median takes so few
// distinct values that its percentiles say little.
const MinRatioSample = 6

// ratioResamples is how many bootstrap resamples MedianRatio draws.
const ratioResamples = 4000

// MedianRatio estimates median(cand) / median(base), two independent samples
// of a positive quantity (wall times), with a two-sided confidence interval
// at level (0.95 for 95%) from the percentile bootstrap: each resample draws
// len(base) values from base and len(cand) from cand with replacement and
// takes the ratio of their medians. The interval covers the sampling noise
// of both medians, so a candidate whose interval lies above a limit is slower
// beyond what the two samples' own spread explains. It is deterministic:
// the resamples come from a fixed seed, so a gate gives the same answer on
// the same two results. Valid is false when either side has fewer than
// MinRatioSample observations or a value that is not positive and finite;
// SE and DF are not set (0).
func MedianRatio(base, cand []float64, level float64) Estimate {
	if len(base) < MinRatioSample || len(cand) < MinRatioSample || !allPositive(base) || !allPositive(cand) {
		return Estimate{}
	}
	median := func(xs []float64) func([]int) float64 {
		buf := make([]float64, len(xs))
		return func(idx []int) float64 {
			for j, i := range idx {
				buf[j] = xs[i]
			}
			return Median(buf)
		}
	}
	return bootstrapRatio(len(base), len(cand), level, Median(cand)/Median(base), median(base), median(cand))
}

// bootstrapRatio is the percentile-bootstrap interval at level for
// stat(candidate) / stat(baseline), two independent samples of nb and nc
// observations: each of ratioResamples resamples draws nb indices of the
// baseline's observations and nc of the candidate's with replacement (from a
// fixed seed) and takes baseStat(indices) and candStat(indices). value is
// the estimate on the samples themselves.
func bootstrapRatio(nb, nc int, level, value float64, baseStat, candStat func(idx []int) float64) Estimate {
	rng := rand.New(rand.NewPCG(uint64(nb), uint64(nc)))
	ratios := make([]float64, ratioResamples)
	bi, ci := make([]int, nb), make([]int, nc)
	for i := range ratios {
		for j := range bi {
			bi[j] = rng.IntN(nb)
		}
		for j := range ci {
			ci[j] = rng.IntN(nc)
		}
		ratios[i] = candStat(ci) / baseStat(bi)
	}
	slices.Sort(ratios)
	a := (1 - level) / 2
	return Estimate{Value: value, Low: stat.Quantile(a, stat.LinInterp, ratios, nil),
		High: stat.Quantile(1-a, stat.LinInterp, ratios, nil), Valid: true}
}

func allPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
