package stats

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// useBatches gives varying columns of r the batch-means interval (BatchSE,
// BatchDF) at confidence: where widenOnly is nil or widenOnly[j] is true,
// only where it is wider than the column's own (SE, DF) (RegressRobustBatch);
// elsewhere in place of it (RegressCalibrated). It rescales Cov to match,
// records each column's df in ColDF and sets Low and High. A column whose
// batch-means SE is 0 (too few rows for batches) keeps its own interval. The
// choice is made at confidence (95% in every fit the tool makes). When an
// early look recomputes the interval at its own, higher level (StopRule), a
// kept batch-means interval is still the wider (its df is the smaller, so
// its quantile grows faster); a kept profile-likelihood interval may then be
// narrower than the batch-means one would have been.
func useBatches(r *Regression, confidence float64, widenOnly []bool) {
	k := len(r.SE)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}.Quantile(0.5 + confidence/2)
	tb := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.BatchDF}.Quantile(0.5 + confidence/2)
	r.ColDF = make([]float64, k)
	scale := make([]float64, k)
	for j := range k {
		r.ColDF[j], scale[j] = r.DF, 1
		if r.BatchSE[j] > 0 && ((widenOnly != nil && !widenOnly[j]) || r.BatchSE[j]*tb > r.SE[j]*tq) {
			r.ColDF[j] = r.BatchDF
			if r.SE[j] > 0 {
				scale[j] = r.BatchSE[j] / r.SE[j]
			}
			r.SE[j] = r.BatchSE[j]
		}
	}
	for i := range k {
		for j := i; j < k; j++ {
			r.Cov.SetSym(i, j, r.Cov.At(i, j)*scale[i]*scale[j])
		}
	}
	for j := range k {
		t := tq
		if r.ColDF[j] != r.DF {
			t = tb
		}
		r.Low[j] = r.Coef[j] - t*r.SE[j]
		r.High[j] = r.Coef[j] + t*r.SE[j]
	}
}

// batchSE is the batch-means (cluster) standard error of the GLS estimate
// of the last fit (see RegressRobustBatch): the whitened rows are split into
// k consecutive batches, S_b = Σ_{t∈b} z̃ₜẽₜ, Ω = k/(k−1)·Σ_b S_b S_bᵀ,
// V = A⁻¹ΩA⁻¹. nil when a batch would have fewer than 2 rows.
func (g *gls) batchSE(k int) []float64 {
	if g.M < 2*k {
		return nil
	}
	e := make([]float64, g.M)
	for t := range e {
		e[t] = g.dw[t]
		for a := 0; a < g.k; a++ {
			e[t] -= g.zw[a][t] * g.beta[a]
		}
	}
	omega := mat.NewSymDense(g.k, nil)
	S := make([]float64, g.k)
	for b := range k {
		lo, hi := b*g.M/k, (b+1)*g.M/k
		for a := range S {
			S[a] = 0
			for t := lo; t < hi; t++ {
				S[a] += g.zw[a][t] * e[t]
			}
		}
		for a := 0; a < g.k; a++ {
			for c := a; c < g.k; c++ {
				omega.SetSym(a, c, omega.At(a, c)+S[a]*S[c])
			}
		}
	}
	omega.ScaleSym(float64(k)/float64(k-1), omega)
	var tmp, V mat.Dense
	tmp.Mul(g.inv, omega)
	V.Mul(&tmp, g.inv)
	se := make([]float64, g.k)
	for a := range se {
		se[a] = math.Sqrt(math.Max(V.At(a, a), 0))
	}
	return se
}

// gls holds the work space of one whitened least-squares fit.
type gls struct {
	M, k int
	dw   []float64   // whitened response
	zw   [][]float64 // whitened regressors
	beta []float64
	ssr  float64
	inv  *mat.SymDense // (Z̃ᵀZ̃)⁻¹
}

func newGLS(M, k int) *gls {
	g := &gls{M: M, k: k, dw: make([]float64, M), zw: make([][]float64, k), beta: make([]float64, k), inv: mat.NewSymDense(k, nil)}
	for j := range g.zw {
		g.zw[j] = make([]float64, M)
	}
	return g
}

// whiten writes into out the (1 − φL)-filtered series x[1:] whitened by
// the Cholesky factor of tridiag(c1, c0, c1), and returns ½·log det.
func whiten(out, x []float64, phi, c0, c1 float64) (halfLogDet float64, ok bool) {
	var lPrev, prev float64
	for t := range out {
		w := x[t+1] - phi*x[t]
		l2, off := choleskyRow(c0, c1, lPrev)
		if !(l2 > 1e-12*c0) {
			return 0, false
		}
		l := math.Sqrt(l2)
		v := (w - off*prev) / l
		out[t] = v
		prev, lPrev = v, l
		halfLogDet += math.Log(l)
	}
	return halfLogDet, true
}

// choleskyRow is one row of the Cholesky factor L of tridiag(c1, c0, c1):
// given the previous row's diagonal lPrev (0 for the first row), the row's
// squared diagonal l2 and its sub-diagonal off (0 for the first row).
func choleskyRow(c0, c1, lPrev float64) (l2, off float64) {
	if lPrev == 0 {
		return c0, 0
	}
	off = c1 / lPrev
	return c0 - off*off, off
}

// fitFamily whitens for (φ, r) in the stationary family (integ false: the
// random walk's steps are white) or the integrated one (integ true: its
// steps are AR(1) with the same φ), fits β by least squares and returns
// the concentrated log-likelihood.
func (g *gls) fitFamily(d []float64, z [][]float64, phi, r float64, integ bool) (float64, bool) {
	c0, c1 := errorModel{phi, r, integ}.ma1()
	h, ok := whiten(g.dw, d, phi, c0, c1)
	if !ok {
		return 0, false
	}
	for j := range z {
		if _, ok := whiten(g.zw[j], z[j], phi, c0, c1); !ok {
			return 0, false
		}
	}
	k := g.k
	A := mat.NewSymDense(k, nil)
	b := mat.NewVecDense(k, nil)
	for a := 0; a < k; a++ {
		for c := a; c < k; c++ {
			A.SetSym(a, c, dot(g.zw[a], g.zw[c]))
		}
		b.SetVec(a, dot(g.zw[a], g.dw))
	}
	var chol mat.Cholesky
	if !chol.Factorize(A) {
		return 0, false
	}
	if chol.Cond() > 1e12 {
		return 0, false
	}
	var beta mat.VecDense
	if err := chol.SolveVecTo(&beta, b); err != nil {
		return 0, false
	}
	if err := chol.InverseTo(g.inv); err != nil {
		return 0, false
	}
	ssr := dot(g.dw, g.dw)
	for a := 0; a < k; a++ {
		g.beta[a] = beta.AtVec(a)
		ssr -= g.beta[a] * b.AtVec(a)
	}
	ssr = math.Max(ssr, 1e-300)
	g.ssr = ssr
	M := float64(g.M)
	return -M/2*math.Log(ssr/M) - h, true
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// residScale is the largest absolute residual.
func residScale(u []float64) float64 {
	var s float64
	for _, v := range u {
		s = math.Max(s, math.Abs(v))
	}
	return s
}

// yScale is the largest absolute value of y (at least the smallest normal
// float, so that ratios stay finite).
func yScale(y []float64) float64 {
	var s float64
	for _, v := range y {
		s = math.Max(s, math.Abs(v))
	}
	return math.Max(s, 1e-300)
}
