package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// differenced is the model y = Xβ + u in first differences, as
// RegressRobust and RegressUnder fit it: the levels OLS fit (for the
// constant columns' coefficients), the varying columns keep, the
// differenced response d and regressors z (one per kept column), and M, the
// rows left after differencing and (1 − φL).
type differenced struct {
	ols  OLSResult
	keep []int
	d    []float64
	z    [][]float64
	M    int
}

// newDifferenced builds the differenced model of X and y; who names the
// caller in errors. Errors as OLS, ErrSingular when no column of X varies,
// and an error when the rows are too few for the varying columns.
func newDifferenced(X *mat.Dense, y []float64, who string) (differenced, error) {
	n, k := X.Dims()
	ols, err := OLS(X, y)
	if err != nil {
		return differenced{}, err
	}
	keep := make([]int, 0, k)
	for j := 0; j < k; j++ {
		if !constantColumn(X, j) {
			keep = append(keep, j)
		}
	}
	if len(keep) == 0 {
		return differenced{}, fmt.Errorf("%w: no regressor varies", ErrSingular)
	}
	M := n - 2 // rows after differencing and (1 − φL)
	if M < len(keep)+5 {
		return differenced{}, fmt.Errorf("stats: %s: %d rows are too few for %d columns", who, n, k)
	}
	z := make([][]float64, len(keep))
	for c, j := range keep {
		z[c] = differences(mat.Col(nil, j, X))
	}
	return differenced{ols: ols, keep: keep, d: differences(y), z: z, M: M}, nil
}

// errorModel is one error model of RegressRobust's grid: (φ, r) in the stationary family (integ false) or the
// integrated one.
type errorModel struct {
	phi, r float64
	integ  bool
}

// errorModels lists the grid RegressRobust searches over phis and rs: every (φ, r) of the stationary family, then,
// when integrated is set, the integrated family's, 0 < φ ≤ maxIntegratedPhi and r > 0 (at r = 0 it is the same model
// as the stationary family's).
func errorModels(phis, rs []float64, integrated bool) []errorModel {
	var out []errorModel
	for _, integ := range []bool{false, true} {
		if integ && !integrated {
			continue
		}
		for _, phi := range phis {
			if integ && (phi <= 0 || phi > maxIntegratedPhi) {
				continue
			}
			for _, r := range rs {
				if integ && r == 0 {
					continue
				}
				out = append(out, errorModel{phi, r, integ})
			}
		}
	}
	return out
}

// likeliestErrorModel is the error model of RegressRobust's grid (both
// families) under which the differenced series d = z·β + e is likeliest,
// and its log-likelihood; ok is false when no model fits (too few rows, a
// rank-deficient design).
func likeliestErrorModel(d []float64, z [][]float64) (m errorModel, ll float64, ok bool) {
	M := len(d) - 1
	if M < len(z)+5 {
		return errorModel{}, 0, false
	}
	g := newGLS(M, len(z))
	ll = math.Inf(-1)
	for _, c := range errorModels(gridPhi, gridR, true) {
		if l, fits := g.fitFamily(d, z, c.phi, c.r, c.integ); fits && l > ll {
			m, ll, ok = c, l, true
		}
	}
	return m, ll, ok
}

// ma1 is the autocovariance (unit scale) at lags 0 and 1 of the MA(1)
// error that (1 − φL) leaves of the differenced model's error under m (see
// RegressRobust, step 1).
func (m errorModel) ma1() (c0, c1 float64) {
	if m.integ {
		return m.r + 2*(1-m.r), -(1 - m.r)
	}
	return m.r*(1+m.phi*m.phi) + 2*(1-m.r), -m.r*m.phi - (1 - m.r)
}

// acov is the autocovariance (unit scale) at lag h ≥ 0 of the differenced
// model's error eₜ under m: eₜ = Δwₜ + vₜ − vₜ₋₁, with v a stationary
// AR(1) (coefficient φ, innovation variance 1 − r) and Δw white with
// variance r (stationary family) or a stationary AR(1) with coefficient φ and
// innovation variance r (integrated family). phiH is φ^h, phiH1 φ^(h−1)
// (unused at h = 0).
func (m errorModel) acov(h int, phiH, phiH1 float64) float64 {
	q := 1 / (1 - m.phi*m.phi)
	v := (1 - m.r) * q // γᵥ(0)
	var g float64
	if h == 0 {
		g = 2*v - 2*v*m.phi
	} else {
		g = v * (2*phiH - phiH1 - phiH*m.phi)
	}
	switch {
	case m.integ:
		g += m.r * q * phiH
	case h == 0:
		g += m.r
	}
	return g
}

// estimatorAutocorr returns, for each column a of the last fit of g (its
// GLS estimate β̂ = (Z̃ᵀZ̃)⁻¹Z̃ᵀW·d, W the whitening of model m, under which
// g was fitted), the lagged sums R_a(h) = Σₜ cₐ,ₜ·cₐ,ₜ₊ₕ, h = 0…len(d)−1, of
// the weights cₐ = Wᵀ·Z̃·(Z̃ᵀZ̃)⁻¹ₐ with which β̂ₐ = cₐᵀd. With them,
// estimatorVariance gives β̂ₐ's variance under any error model.
func estimatorAutocorr(g *gls, m errorModel) [][]float64 {
	c0, c1 := m.ma1()
	out := make([][]float64, g.k)
	v := make([]float64, g.M)
	for a := range out {
		for t := range v {
			v[t] = 0
			for b := 0; b < g.k; b++ {
				v[t] += g.inv.At(a, b) * g.zw[b][t]
			}
		}
		c := make([]float64, g.M+1)
		whitenAdjoint(c, v, m.phi, c0, c1)
		out[a] = laggedSums(c)
	}
	return out
}

// laggedSums returns R(h) = Σₜ c[t]·c[t+h], h = 0…len(c)−1.
func laggedSums(c []float64) []float64 {
	R := make([]float64, len(c))
	for h := range R {
		R[h] = dot(c[:len(c)-h], c[h:])
	}
	return R
}

// estimatorVariance is Σₕ γ(h)·R(h) over all lags (both signs), γ the
// differenced error's autocovariance under m (unit scale) and R an
// estimator's lagged weight sums (estimatorAutocorr): the estimator's
// variance under m, in units of m's innovation variance.
func estimatorVariance(R []float64, m errorModel) float64 {
	s := m.acov(0, 1, 0) * R[0]
	phiH1, phiH := 1.0, m.phi
	for h := 1; h < len(R); h++ {
		s += 2 * m.acov(h, phiH, phiH1) * R[h]
		if math.Abs(phiH1) < 1e-17 {
			// γ(h) is 0 from here on (up to the integrated family's
			// φ^h, which is below rounding too).
			break
		}
		phiH1, phiH = phiH, phiH*m.phi
	}
	return s
}

// whitenAdjoint writes into out (length len(v)+1) the adjoint of whiten
// applied to v: Dᵀ·L⁻ᵀ·v, where whiten computes L⁻¹·D·x with D the
// (1 − φL) filter that drops x's first value and L the Cholesky factor of
// tridiag(c1, c0, c1). Its callers have whitened with the same (φ, c0, c1)
// successfully.
func whitenAdjoint(out, v []float64, phi, c0, c1 float64) {
	M := len(v)
	l := make([]float64, M)
	off := make([]float64, M)
	var lPrev float64
	for t := range M {
		l2, o := choleskyRow(c0, c1, lPrev)
		l[t], off[t] = math.Sqrt(l2), o
		lPrev = l[t]
	}
	y := make([]float64, M)
	for t := M - 1; t >= 0; t-- {
		y[t] = v[t]
		if t+1 < M {
			y[t] -= off[t+1] * y[t+1]
		}
		y[t] /= l[t]
	}
	for j := range out {
		out[j] = 0
		if j >= 1 {
			out[j] += y[j-1]
		}
		if j < M {
			out[j] -= phi * y[j]
		}
	}
}

// differences returns x[t] − x[t−1], t = 1…len(x)−1.
func differences(x []float64) []float64 {
	d := make([]float64, len(x)-1)
	for t := 1; t < len(x); t++ {
		d[t-1] = x[t] - x[t-1]
	}
	return d
}
