package stats

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// ComparePairedCovariate is ComparePaired on a paired difference with one
// known nuisance taken out first: in is the series model − control on
// lifecycles (as for ComparePaired), cov, one value per sample, the
// difference between the two runs of a quantity that moves the signal but is
// not the leak (analysis.TimerBacklog: RocksDB's cancelled timer entries,
// whose number depends on each run's wall-clock pace). Its coefficient γ is
// fitted by least squares over every sample,
//
//	Y = a + β·Lifecycles + γ·cov + e,
//
// and ComparePaired judges Y − γ̂·cov: its warm-up cut, batch-means estimate
// and interval (DefaultBatches batches, Student-t with k − 1 df, honest under
// a random walk as well as under stationary noise), level and flags are
// ComparePaired's. The uncertainty of γ̂ is not added: the batches see what
// the adjusted series still wanders.
//
// When cov does not vary, or is collinear with Lifecycles, nothing is taken
// out and the verdict is ComparePaired's on in. It returns an error when
// len(cov) differs from len(in.Y).
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
	return ComparePaired(in, fitOpt, opt)
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
	mx, mz := mean(x), mean(z)
	fit := func(cols int) ([]float64, bool) {
		X := mat.NewDense(n, cols, nil)
		for i := range n {
			X.Set(i, 0, 1)
			X.Set(i, 1, x[i]-mx)
			if cols == 3 {
				X.Set(i, 2, z[i]-mz)
			}
		}
		var xtx mat.SymDense
		xtx.SymOuterK(1, X.T())
		var chol mat.Cholesky
		if !chol.Factorize(&xtx) || chol.Cond() > 1e12 {
			return nil, false
		}
		var xty, beta mat.VecDense
		xty.MulVec(X.T(), mat.NewVecDense(n, y))
		if err := chol.SolveVecTo(&beta, &xty); err != nil {
			return nil, false
		}
		coef := make([]float64, cols)
		for j := range cols {
			coef[j] = beta.AtVec(j)
		}
		// The intercept is at the centred means; report it at x = z = 0.
		coef[0] -= coef[1] * mx
		if cols == 3 {
			coef[0] -= coef[2] * mz
		}
		return coef, true
	}
	if varies(z) {
		if coef, ok := fit(3); ok {
			return coef, nil
		}
	}
	if coef, ok := fit(2); ok {
		return coef, nil
	}
	return nil, fmt.Errorf("%w: XᵀX is not positive definite", ErrSingular)
}
