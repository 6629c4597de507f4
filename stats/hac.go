package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// maxAR1 bounds the AR(1) coefficients used by AndrewsBandwidth, as
// Andrews (1991) recommends, so that a near-unit-root score does not give an
// infinite bandwidth.
const maxAR1 = 0.97

// NeweyWest returns the heteroskedasticity- and autocorrelation-consistent
// (HAC) covariance matrix of the OLS coefficients of y on X, given the OLS
// residuals resid = y − Xβ̂:
//
//	V = (XᵀX)⁻¹ Ŝ (XᵀX)⁻¹,  Ŝ = Γ₀ + Σ_{j≥1} k(j/S) (Γⱼ + Γⱼᵀ),  Γⱼ = Σₜ ûₜûₜ₋ⱼ xₜxₜ₋ⱼᵀ
//
// with the Bartlett kernel k(z) = 1 − |z| for |z| < 1 (Newey and West, 1987),
// which keeps V positive semi-definite. The bandwidth S is in samples; with
// the usual Newey–West "lag L" it is S = L + 1. If bandwidth ≤ 0 it is
// chosen by AndrewsBandwidth. No small-sample degrees-of-freedom factor is
// applied. NeweyWest returns the covariance in units of (y per unit of
// regressor)², and the bandwidth it used.
//
// The estimator is consistent; in finite samples with strongly
// autocorrelated errors it is biased downwards, which callers should offset
// with Student-t rather than normal critical values (FitSignal does).
func NeweyWest(X *mat.Dense, resid []float64, bandwidth float64) (*mat.SymDense, float64, error) {
	n, k := X.Dims()
	if n != len(resid) {
		return nil, 0, fmt.Errorf("stats: NeweyWest: X has %d rows, resid has %d values", n, len(resid))
	}
	var xtx mat.SymDense
	xtx.SymOuterK(1, X.T())
	var chol mat.Cholesky
	if !chol.Factorize(&xtx) {
		return nil, 0, fmt.Errorf("%w: XᵀX is not positive definite", ErrSingular)
	}
	bread := mat.NewSymDense(k, nil)
	if err := chol.InverseTo(bread); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrSingular, err)
	}
	if bandwidth <= 0 {
		bandwidth = AndrewsBandwidth(X, resid)
	}
	S := hacMeat(X, resid, bandwidth)
	var tmp, v mat.Dense
	tmp.Mul(bread, S)
	v.Mul(&tmp, bread)
	cov := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			cov.SetSym(i, j, (v.At(i, j)+v.At(j, i))/2)
		}
	}
	return cov, bandwidth, nil
}

// hacMeat returns Ŝ, the Bartlett-weighted long-run covariance of the scores
// vₜ = xₜûₜ (unscaled: a sum over t, not a mean).
func hacMeat(X *mat.Dense, resid []float64, bandwidth float64) *mat.SymDense {
	n, k := X.Dims()
	v := scores(X, resid)
	S := mat.NewSymDense(k, nil)
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			var s float64
			for t := 0; t < n; t++ {
				s += v[t*k+a] * v[t*k+b]
			}
			for j := 1; j < n && float64(j) < bandwidth; j++ {
				w := 1 - float64(j)/bandwidth
				var g float64
				for t := j; t < n; t++ {
					g += v[t*k+a]*v[(t-j)*k+b] + v[(t-j)*k+a]*v[t*k+b]
				}
				s += w * g
			}
			S.SetSym(a, b, s)
		}
	}
	return S
}

// scores returns vₜ = xₜûₜ as a row-major n×k slice.
func scores(X *mat.Dense, resid []float64) []float64 {
	n, k := X.Dims()
	v := make([]float64, n*k)
	for t := 0; t < n; t++ {
		for a := 0; a < k; a++ {
			v[t*k+a] = X.At(t, a) * resid[t]
		}
	}
	return v
}

// AndrewsBandwidth returns the Bartlett-kernel bandwidth S (in samples) of
// Andrews (1991), eq. (6.2) with the AR(1) plug-in of §6:
//
//	S = 1.1447 (α̂(1) n)^{1/3},  α̂(1) = Σₐ 4ρₐ²σₐ⁴/((1−ρₐ)⁶(1+ρₐ)²) / Σₐ σₐ⁴/(1−ρₐ)⁴
//
// where (ρₐ, σₐ²) is an AR(1) fit to the score component xₜₐûₜ of each
// non-constant column a of X (the intercept gets weight 0, as Andrews
// recommends; a constant-only X uses the intercept). ρₐ is clipped to
// [−0.97, 0.97]. The result is at least 1 (no lags) and at most n.
func AndrewsBandwidth(X *mat.Dense, resid []float64) float64 {
	n, k := X.Dims()
	if n < 3 {
		return 1
	}
	v := scores(X, resid)
	cols := make([]int, 0, k)
	for a := 0; a < k; a++ {
		if !constantColumn(X, a) {
			cols = append(cols, a)
		}
	}
	if len(cols) == 0 {
		cols = append(cols, 0)
	}
	var num, den float64
	for _, a := range cols {
		var sxy, sxx float64
		for t := 1; t < n; t++ {
			sxy += v[t*k+a] * v[(t-1)*k+a]
			sxx += v[(t-1)*k+a] * v[(t-1)*k+a]
		}
		if sxx == 0 {
			continue
		}
		rho := math.Max(-maxAR1, math.Min(maxAR1, sxy/sxx))
		var s2 float64
		for t := 1; t < n; t++ {
			e := v[t*k+a] - rho*v[(t-1)*k+a]
			s2 += e * e
		}
		s2 /= float64(n - 1)
		s4 := s2 * s2
		num += 4 * rho * rho * s4 / (math.Pow(1-rho, 6) * (1 + rho) * (1 + rho))
		den += s4 / math.Pow(1-rho, 4)
	}
	if den == 0 {
		return 1
	}
	s := 1.1447 * math.Cbrt(num/den*float64(n))
	return math.Max(1, math.Min(s, float64(n)))
}

func constantColumn(X *mat.Dense, a int) bool {
	n, _ := X.Dims()
	first := X.At(0, a)
	for t := 1; t < n; t++ {
		if X.At(t, a) != first {
			return false
		}
	}
	return true
}
