package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// ComparePairedCovariate is the controlled verdict on a paired difference
// with one known nuisance taken out first: in is the series model − control
// on lifecycles (as for ComparePaired), cov, one value per sample, the
// difference between the two runs of a quantity that moves the signal but is
// not the leak (analysis.TimerBacklog: RocksDB's cancelled timer entries,
// whose number depends on each run's wall-clock pace). Its coefficient γ is
// fitted by least squares over every sample,
//
//	Y = a + β·Lifecycles + γ·cov + e,
//
// and Y − γ̂·cov is judged as ComparePaired judges a series (warm-up cut,
// blocking flags, level, BetweenRunSD, decision), with one difference: the
// slope is BatchMeanDifferences, the slopes between consecutive batches'
// means, rather than the mean of the batches' own slopes. Once the nuisance
// is out, what is left on real calibration pairs is noise that lasts about a
// step (four lifecycles) plus a slower wander; the batches' own slopes read
// the first at full strength, their means average it away (docs/findings.md,
// 2026-12-03 night). The uncertainty of γ̂ is not added: the batches see what
// the adjusted series still wanders.
//
// When cov does not vary, or is collinear with Lifecycles, nothing is taken
// out. It returns an error when len(cov) differs from len(in.Y).
func ComparePairedCovariate(in Input, cov []float64, fitOpt Options, opt CompareOptions) (Comparison, Fit, error) {
	if len(cov) != len(in.Y) || len(in.Lifecycles) != len(in.Y) {
		err := fmt.Errorf("stats: ComparePairedCovariate: %d values, %d lifecycles, %d covariate values", len(in.Y), len(in.Lifecycles), len(cov))
		return Comparison{Reason: "no paired difference: " + err.Error()}, Fit{}, err
	}
	if coef, err := olsCovariate(in.Lifecycles, cov, in.Y); err == nil && len(coef) == 3 {
		adjusted := in
		adjusted.Y = make([]float64, len(in.Y))
		for i, y := range in.Y {
			adjusted.Y[i] = y - coef[2]*cov[i]
		}
		in = adjusted
	}
	return comparePairedBy(in, fitOpt, opt, BatchMeanDifferences)
}

// BatchMeanDifferences estimates the per-lifecycle slope of in from k
// consecutive batches of (nearly) equal count: the batches' means of Y and
// of Lifecycles, the K = k − 1 slopes between consecutive batches' means, and
// their mean, with k − 2 degrees of freedom (a Student-t interval at
// confidence, default 0.95). k < 3 means DefaultBatches.
//
// Its standard error is SD/√K scaled for a random walk: there two
// consecutive slopes share the increments of one batch (each weighted by
// how far into the batch it falls) and correlate at ρ = 1/4, so the mean's
// variance is (1 + 2ρ(K−1)/K)·σ²/K while the SD² of the K slopes averages
// (1 − 2ρ/K)·σ²; the factor is the root of their ratio (1.24 at k = 8).
// Under noise that lasts much less than a batch the means average it away,
// where a batch's own slope (BatchMeansSlope) reads it at full strength, and
// consecutive slopes then correlate negatively (each batch mean enters two
// of them with opposite signs): the standard error errs wide. Their mean
// telescopes to the slope between the first and the
// last batch's means (when the batches' lifecycle spans are equal). It is
// !Valid when a batch has fewer than 3 samples or two consecutive batches'
// mean lifecycles coincide.
func BatchMeanDifferences(in Input, k int, confidence float64) Estimate {
	k, confidence, ok := batchArgs(in, k, 3, confidence)
	if !ok {
		return Estimate{}
	}
	n := len(in.Y)
	my, ml := make([]float64, k), make([]float64, k)
	for b := range k {
		lo, hi := b*n/k, (b+1)*n/k
		my[b], ml[b] = mean(in.Y[lo:hi]), mean(in.Lifecycles[lo:hi])
	}
	d := make([]float64, k-1)
	for b := range k - 1 {
		dl := ml[b+1] - ml[b]
		if !(dl > 0) {
			return Estimate{}
		}
		d[b] = (my[b+1] - my[b]) / dl
	}
	m, sd := stat.MeanStdDev(d, nil)
	K, rho := float64(k-1), 0.25
	se := sd / math.Sqrt(K) * math.Sqrt((1+2*rho*(K-1)/K)/(1-2*rho/K))
	return tEstimate(m, se, float64(k-2), confidence)
}

// errOLSCovariate is olsCovariate's failure: too few samples, or lifecycles
// that do not vary.
var errOLSCovariate = errors.New("a fit on lifecycles needs at least 3 samples and lifecycles that vary")

// olsCovariate fits y = a + β·x + γ·z by least squares and returns (a, β,
// γ), or (a, β) when z does not vary or is collinear with x.
func olsCovariate(x, z, y []float64) ([]float64, error) {
	n := len(y)
	if n < 3 || len(x) != n || len(z) != n || !varies(x) {
		return nil, errOLSCovariate
	}
	// design centres each column: report the intercept at x = z = 0.
	fit := func(cols ...[]float64) ([]float64, error) {
		r, err := OLS(design(cols...), y)
		if err != nil {
			return nil, err
		}
		coef := r.Coef
		for j, c := range cols {
			coef[0] -= coef[j+1] * mean(c)
		}
		return coef, nil
	}
	if varies(z) {
		if coef, err := fit(x, z); err == nil {
			return coef, nil
		}
	}
	return fit(x)
}
