package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrorModel is one error model of RegressRobust's grid, named by its
// parameters: uₜ = wₜ + vₜ, v a stationary AR(1) with coefficient Phi and w
// a random walk carrying RandomWalkShare (r) of the innovation variance,
// whose steps are white or, with Bursty, AR(1) with the same Phi
// (RegressRobust's integrated family). White noise is the zero value, a
// random walk RandomWalkShare 1.
type ErrorModel struct {
	Phi, RandomWalkShare float64
	Bursty               bool
}

// ModelFit is RegressUnder's fit.
type ModelFit struct {
	// Coef and SE are per column of X: a constant column's Coef is the
	// levels OLS estimate and its SE 0, as in RegressRobust.
	Coef, SE []float64
	// DF is RegressRobust's, M − k − 2 (M = n − 2 rows, k varying
	// columns), so that Student-t intervals compare with its own.
	DF float64
	// LogLik is the concentrated Gaussian log-likelihood, conditional on
	// the first two samples: between models fitted to the same y, a
	// difference of LogLik is a log-likelihood ratio.
	LogLik float64
}

// RegressUnder fits y = Xβ + u by GLS under the error model m taken as
// known, its scale profiled out: RegressRobust's fit at one point of its
// grid (step 2 of its method), without the search over the grid or the
// region over which RegressRobust takes its largest standard error. The
// standard error is the GLS one under m, σ̂²(Z̃ᵀZ̃)⁻¹ with σ̂² = SSR/DF. It is
// what one can do knowing the error model, the yardstick of
// stats/simulate's coverage frontier. Errors as RegressRobust, and
// an error naming the field when Phi is not in (−1, 1) or RandomWalkShare
// not in [0, 1].
func RegressUnder(X *mat.Dense, y []float64, m ErrorModel) (ModelFit, error) {
	n, k := X.Dims()
	switch {
	case n != len(y):
		return ModelFit{}, fmt.Errorf("stats: RegressUnder: X has %d rows, y has %d values", n, len(y))
	case !(m.Phi > -1 && m.Phi < 1):
		return ModelFit{}, fmt.Errorf("stats: RegressUnder: ErrorModel.Phi %v not in (-1, 1)", m.Phi)
	case !(m.RandomWalkShare >= 0 && m.RandomWalkShare <= 1):
		return ModelFit{}, fmt.Errorf("stats: RegressUnder: ErrorModel.RandomWalkShare %v not in [0, 1]", m.RandomWalkShare)
	}
	dd, err := newDifferenced(X, y, "RegressUnder")
	if err != nil {
		return ModelFit{}, err
	}
	g := newGLS(dd.M, len(dd.keep))
	ll, ok := g.fitFamily(dd.d, dd.z, m.Phi, m.RandomWalkShare, m.Bursty)
	if !ok {
		return ModelFit{}, fmt.Errorf("%w: the differenced design is rank deficient under %+v", ErrSingular, m)
	}
	df := float64(dd.M - len(dd.keep) - 2)
	f := ModelFit{Coef: append([]float64(nil), dd.ols.Coef...), SE: make([]float64, k), DF: df, LogLik: ll}
	for a, j := range dd.keep {
		f.Coef[j] = g.beta[a]
		f.SE[j] = math.Sqrt(math.Max(g.ssr/df*g.inv.At(a, a), 0))
	}
	return f, nil
}
