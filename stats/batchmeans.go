package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultBatches is the number of batches BatchMeansSlope uses by default.
const DefaultBatches = 8

// BatchMeansSlope estimates the per-lifecycle slope of in by batch means:
// the samples are split into k consecutive batches of (nearly) equal count,
// each batch's slope is fitted by ordinary least squares on Lifecycles
// alone, and the estimate is the mean of the k batch slopes, with standard
// error SD/√k and k − 1 degrees of freedom (a Student-t interval at
// confidence, default 0.95).
//
// It makes no assumption on the errors within a batch beyond that batches
// are nearly independent: under a random walk the batch slopes depend on
// disjoint increments and are independent; under a stationary AR(1) they are
// nearly so once a batch is long against 1/(1−φ); variance that changes over
// the run (quiet and busy periods) and a slope that wanders within the run
// widen the SD as they should. A slope that is constant over one run but
// differs between runs it cannot see. It is !Valid when a batch has fewer
// than 3 samples or its lifecycles do not vary (k < 2 means DefaultBatches).
func BatchMeansSlope(in Input, k int, confidence float64) Estimate {
	k, confidence, ok := batchArgs(in, k, 2, confidence)
	if !ok {
		return Estimate{}
	}
	n := len(in.Y)
	slopes := make([]float64, k)
	for b := range k {
		lo, hi := b*n/k, (b+1)*n/k
		s, ok := OLSSlope(in.Lifecycles[lo:hi], in.Y[lo:hi])
		if !ok {
			return Estimate{}
		}
		slopes[b] = s
	}
	var mean float64
	for _, s := range slopes {
		mean += s
	}
	mean /= float64(k)
	var ss float64
	for _, s := range slopes {
		ss += (s - mean) * (s - mean)
	}
	se := math.Sqrt(ss / float64(k-1) / float64(k))
	return tEstimate(mean, se, float64(k-1), confidence)
}

// batchArgs normalises a batch-means estimator's arguments: k below minK
// means DefaultBatches, a confidence outside (0, 1) means 0.95. ok is false
// when in has fewer than 3 samples a batch or its Lifecycles do not match Y.
func batchArgs(in Input, k, minK int, confidence float64) (int, float64, bool) {
	if k < minK {
		k = DefaultBatches
	}
	if !(confidence > 0 && confidence < 1) {
		confidence = 0.95
	}
	n := len(in.Y)
	return k, confidence, n >= 3*k && len(in.Lifecycles) == n
}

// tEstimate is the Estimate m ± t·se at two-sided confidence with df
// degrees of freedom (Student-t).
func tEstimate(m, se, df, confidence float64) Estimate {
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + confidence/2)
	return Estimate{Value: m, Low: m - tq*se, High: m + tq*se, SE: se, DF: df, Valid: true}
}

// OLSSlope is the least-squares slope of y on x (gonum's
// stat.LinearRegression); ok is false when x does not vary.
func OLSSlope(x, y []float64) (float64, bool) {
	if !varies(x) {
		return 0, false
	}
	_, beta := stat.LinearRegression(x, y, nil, false)
	return beta, true
}
