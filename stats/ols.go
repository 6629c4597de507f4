package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrSingular is returned (wrapped) when a design matrix does not have full
// column rank, for example when a regressor never varies or two regressors
// are proportional.
var ErrSingular = errors.New("stats: design matrix is rank deficient")

// maxCond is the largest condition number of a (column-scaled) design matrix
// that OLS accepts as full rank.
const maxCond = 1e10

// OLSResult is an ordinary least-squares fit of y on the columns of X.
type OLSResult struct {
	// Coef holds one coefficient per column of X, in column order, in the
	// units of y per unit of that column.
	Coef []float64
	// Resid holds y − Xβ, one per row, in the units of y.
	Resid []float64
	// R2 is the coefficient of determination 1 − SSR/SST, with SST taken
	// about the mean of y. It is only meaningful when X has an intercept
	// column; it is 0 when y is constant.
	R2 float64
	// SSR is the residual sum of squares.
	SSR float64
	// XtXInv is (XᵀX)⁻¹, the "bread" of sandwich covariance estimators.
	XtXInv *mat.SymDense
}

// OLS fits y = Xβ + u by least squares via a QR factorization of X.
// X is n×k with n ≥ k; the caller includes an intercept column if one is
// wanted. OLS does not modify X or y. It returns an error wrapping
// ErrSingular when X is rank deficient (judged on X with its columns scaled
// to unit norm, so units do not matter), and a plain error for mismatched
// sizes or non-finite input.
func OLS(X *mat.Dense, y []float64) (OLSResult, error) {
	n, k := X.Dims()
	if n != len(y) {
		return OLSResult{}, fmt.Errorf("stats: OLS: X has %d rows, y has %d values", n, len(y))
	}
	if n < k || k == 0 {
		return OLSResult{}, fmt.Errorf("%w: %d rows for %d columns", ErrSingular, n, k)
	}
	for _, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return OLSResult{}, errors.New("stats: OLS: y is not finite")
		}
	}
	Xs, sc, err := standardize(X)
	if err != nil {
		return OLSResult{}, err
	}
	var qr mat.QR
	qr.Factorize(Xs)
	if c := qr.Cond(); !(c < maxCond) {
		return OLSResult{}, fmt.Errorf("%w: condition number %.3g", ErrSingular, c)
	}
	var bs mat.VecDense
	if err := qr.SolveVecTo(&bs, false, mat.NewVecDense(n, append([]float64(nil), y...))); err != nil {
		return OLSResult{}, fmt.Errorf("%w: %v", ErrSingular, err)
	}
	coef := sc.coef(X, &bs)
	inv, err := sc.bread(X, &qr)
	if err != nil {
		return OLSResult{}, err
	}
	resid, ssr, r2 := residuals(X, y, coef)
	return OLSResult{Coef: coef, Resid: resid, R2: r2, SSR: ssr, XtXInv: inv}, nil
}

// olsScaling is how OLS standardises X: Xs = (X − 1·shiftᵀ)D⁻¹ with
// D = diag(scale). icpt is X's constant (intercept) column, −1 if none;
// shift is 0 on it and on every column when X has none.
type olsScaling struct {
	shift, scale []float64
	icpt         int
}

// standardize returns X standardised for OLS, and how. If X has a constant
// (intercept) column, it centres the other columns: the slopes are
// unchanged and the fit stays accurate when counters carry large offsets.
// Then it scales columns to unit norm so that the rank decision and the
// numerics do not depend on units (bytes vs. counts). It returns a plain
// error when X is not finite and one wrapping ErrSingular when a column
// has no variation, column by column in that order.
func standardize(X *mat.Dense) (*mat.Dense, olsScaling, error) {
	n, k := X.Dims()
	icpt := -1
	for j := 0; j < k && icpt < 0; j++ {
		if X.At(0, j) != 0 && constantColumn(X, j) {
			icpt = j
		}
	}
	shift := make([]float64, k)
	scale := make([]float64, k)
	Xs := mat.NewDense(n, k, nil)
	for j := 0; j < k; j++ {
		for i := 0; i < n; i++ {
			if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, olsScaling{}, errors.New("stats: OLS: X is not finite")
			}
		}
		if icpt >= 0 && j != icpt {
			shift[j] = mat.Sum(X.ColView(j)) / float64(n)
		}
		var ss float64
		for i := 0; i < n; i++ {
			v := X.At(i, j) - shift[j]
			ss += v * v
		}
		if ss == 0 {
			return nil, olsScaling{}, fmt.Errorf("%w: column %d has no variation", ErrSingular, j)
		}
		scale[j] = math.Sqrt(ss)
		for i := 0; i < n; i++ {
			Xs.Set(i, j, (X.At(i, j)-shift[j])/scale[j])
		}
	}
	return Xs, olsScaling{shift: shift, scale: scale, icpt: icpt}, nil
}

// coef returns the coefficients on the original X from bs, those on the
// standardised X.
func (sc olsScaling) coef(X *mat.Dense, bs *mat.VecDense) []float64 {
	scale, shift, icpt := sc.scale, sc.shift, sc.icpt
	coef := make([]float64, len(scale))
	for j := range coef {
		coef[j] = bs.AtVec(j) / scale[j]
	}
	if icpt >= 0 {
		// Xs·b = Σⱼ (Xⱼ − shiftⱼ)·coefⱼ; fold the shifts into the intercept.
		c0 := X.At(0, icpt)
		for j := range coef {
			coef[icpt] -= coef[j] * shift[j] / c0
		}
	}
	return coef
}

// bread returns (XᵀX)⁻¹ of the original X from qr, the QR factorisation
// of the standardised X; an error wrapping ErrSingular if R is singular.
// With Xs = (X − 1·shiftᵀ)D⁻¹ = QR, X = Xs·D·T with T = I + e_icpt·shiftᵀ/c0
// (c0 the intercept value), so (XᵀX)⁻¹ = T⁻¹ D⁻¹ (RᵀR)⁻¹ D⁻¹ T⁻ᵀ, where
// T⁻¹ = I − e_icpt·shiftᵀ/c0.
func (sc olsScaling) bread(X *mat.Dense, qr *mat.QR) (*mat.SymDense, error) {
	scale, shift, icpt := sc.scale, sc.shift, sc.icpt
	k := len(scale)
	var r mat.Dense
	qr.RTo(&r)
	rt := mat.NewTriDense(k, mat.Upper, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			rt.SetTri(i, j, r.At(i, j))
		}
	}
	var ri mat.TriDense
	if err := ri.InverseTri(rt); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSingular, err)
	}
	// M = D⁻¹ R⁻¹ (k×k), then (XᵀX)⁻¹ = (T⁻¹M)(T⁻¹M)ᵀ.
	M := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			M.Set(i, j, ri.At(i, j)/scale[i])
		}
	}
	if icpt >= 0 {
		c0 := X.At(0, icpt)
		for j := 0; j < k; j++ {
			var s float64
			for l := 0; l < k; l++ {
				s += shift[l] * M.At(l, j)
			}
			M.Set(icpt, j, M.At(icpt, j)-s/c0)
		}
	}
	inv := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			inv.SetSym(i, j, mat.Dot(M.RowView(i), M.RowView(j)))
		}
	}
	return inv, nil
}

// residuals returns y − X·coef, its sum of squares ssr, and R² = 1 − ssr/sst
// with sst about y's mean (0 when y is constant).
func residuals(X *mat.Dense, y, coef []float64) (resid []float64, ssr, r2 float64) {
	n, k := X.Dims()
	resid = make([]float64, n)
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	var sst float64
	for i := 0; i < n; i++ {
		fit := 0.0
		for j := 0; j < k; j++ {
			fit += X.At(i, j) * coef[j]
		}
		resid[i] = y[i] - fit
		ssr += resid[i] * resid[i]
		d := y[i] - mean
		sst += d * d
	}
	if sst > 0 {
		r2 = 1 - ssr/sst
	}
	return resid, ssr, r2
}

// design builds an n×(1+len(cols)) design matrix: an intercept column of
// ones followed by the given regressors, each centred on its mean (centring
// changes only the intercept, and keeps the fit well conditioned when the
// counters are large).
func design(cols ...[]float64) *mat.Dense {
	n := len(cols[0])
	k := 1 + len(cols)
	X := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, 1)
	}
	for j, c := range cols {
		m := mean(c)
		for i, v := range c {
			X.Set(i, j+1, v-m)
		}
	}
	return X
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
