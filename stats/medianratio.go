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
	rng := rand.New(rand.NewPCG(uint64(len(base)), uint64(len(cand))))
	ratios := make([]float64, ratioResamples)
	bs, cs := make([]float64, len(base)), make([]float64, len(cand))
	for i := range ratios {
		for j := range bs {
			bs[j] = base[rng.IntN(len(base))]
		}
		for j := range cs {
			cs[j] = cand[rng.IntN(len(cand))]
		}
		ratios[i] = Median(cs) / Median(bs)
	}
	slices.Sort(ratios)
	a := (1 - level) / 2
	return Estimate{Value: Median(cand) / Median(base), Low: stat.Quantile(a, stat.LinInterp, ratios, nil),
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
