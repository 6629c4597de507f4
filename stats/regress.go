package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Regression is a linear regression of y on X with autocorrelation-honest
// standard errors and confidence intervals. Slices are indexed by column of
// X; units are those of y per unit of the column.
type Regression struct {
	Coef []float64 // point estimates (Cochrane–Orcutt, see Regress)
	SE   []float64 // HAC standard errors
	Low  []float64 // lower confidence bounds
	High []float64 // upper confidence bounds
	// DF is the Student-t degrees of freedom used for the intervals:
	// observations in the quasi-differenced regression minus columns.
	DF float64
	// Rho is the AR(1) coefficient of the OLS residuals, clipped to
	// [−0.97, 0.97], used to quasi-difference the data (Regress); for
	// RegressRobust the AR(1) coefficient φ̂ of the stationary error part.
	Rho float64
	// RandomWalkShare is RegressRobust's r̂: the share of the innovation
	// variance that goes to a random-walk component of the errors (0 for
	// Regress).
	RandomWalkShare float64
	// RandomWalkPlausible (RegressRobust only) says the errors' likelihood
	// region contains a random walk, so the interval allows for one.
	RandomWalkPlausible bool
	// IntegratedAR (RegressRobust only) says the likelihood's maximum is in
	// the integrated family: a random walk whose steps are AR(1) with
	// coefficient IntegratedPhi (growth in bursts; see RegressRobust). Rho
	// and RandomWalkShare are then still the stationary family's, whose
	// maximum gives the estimate.
	IntegratedAR  bool
	IntegratedPhi float64
	// BatchSE (RegressRobustBatch only) is the batch-means
	// (cluster, fixed-b) standard error of each coefficient, with BatchDF
	// degrees of freedom (see RegressRobustBatch); 0 for a constant column
	// or a series too short for batches.
	BatchSE []float64
	BatchDF float64
	// ColDF, when set (RegressRobustBatch), is the Student-t degrees of
	// freedom of each column's interval: DF, or BatchDF where the
	// batch-means interval is the wider. Use DFOf.
	ColDF []float64
	// Method is the interval method that produced the fit.
	Method IntervalMethod
	// Bandwidth is the Newey–West (Bartlett) bandwidth in samples chosen by
	// AndrewsBandwidth on the quasi-differenced regression.
	Bandwidth float64
	// Cov is the HAC covariance matrix of Coef (SE holds the square roots
	// of its diagonal).
	Cov *mat.SymDense
	// OLS is the plain least-squares fit on the original data (its R2 and
	// residuals describe the data; its coefficients are close to Coef).
	OLS OLSResult
}

// DFOf is the degrees of freedom of column j's interval: ColDF[j] when set,
// else DF.
func (r Regression) DFOf(j int) float64 {
	if j < len(r.ColDF) {
		return r.ColDF[j]
	}
	return r.DF
}

// Regress fits y = Xβ + u where u may be autocorrelated, and returns
// confidence intervals at level confidence (e.g. 0.95). X is n×k and must
// contain an intercept column if one is wanted.
//
// Method (one-step Cochrane–Orcutt feasible GLS followed by Newey–West on
// the transformed model; not Andrews–Monahan prewhitening, which keeps OLS
// and recolours the HAC matrix): an OLS fit gives residuals ûₜ and
// their lag-1 autocorrelation ρ̂; the regression is quasi-differenced
// (Cochrane–Orcutt: yₜ − ρ̂yₜ₋₁ on xₜ − ρ̂xₜ₋₁, t = 2..n), refitted by OLS,
// and the covariance of that fit is estimated with NeweyWest (Bartlett
// kernel, Andrews AR(1) plug-in bandwidth). Intervals use Student-t critical
// values with DF degrees of freedom. Quasi-differencing removes most of the
// autocorrelation, so the HAC estimator only has to correct what is left;
// plain Newey–West on trending data is biased low (covers ≈88% at a nominal
// 95% under AR(1) errors with φ = 0.7, n = 500) while this procedure covers
// ≈93% (see TestCoverage). If the errors are not AR(1), the HAC step still
// makes the standard errors consistent.
//
// Regress returns an error wrapping ErrSingular when X (or its
// quasi-differenced form) is rank deficient, and a plain error for
// mismatched sizes, too few rows (n < k+3) or a confidence outside (0, 1).
func Regress(X *mat.Dense, y []float64, confidence float64) (Regression, error) {
	n, k := X.Dims()
	if n != len(y) {
		return Regression{}, fmt.Errorf("stats: Regress: X has %d rows, y has %d values", n, len(y))
	}
	if !(confidence > 0 && confidence < 1) {
		return Regression{}, fmt.Errorf("stats: Regress: confidence %v not in (0, 1)", confidence)
	}
	if n < k+3 {
		return Regression{}, fmt.Errorf("stats: Regress: %d rows are too few for %d columns", n, k)
	}
	ols, err := OLS(X, y)
	if err != nil {
		return Regression{}, err
	}
	rho := clip(lag1(ols.Resid), -maxAR1, maxAR1)

	m := n - 1
	Xq := mat.NewDense(m, k, nil)
	yq := make([]float64, m)
	for t := 1; t < n; t++ {
		for j := 0; j < k; j++ {
			Xq.Set(t-1, j, X.At(t, j)-rho*X.At(t-1, j))
		}
		yq[t-1] = y[t] - rho*y[t-1]
	}
	q, err := OLS(Xq, yq)
	if err != nil {
		return Regression{}, err
	}
	cov, bw, err := NeweyWest(Xq, q.Resid, 0)
	if err != nil {
		return Regression{}, err
	}
	df := float64(m - k)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + confidence/2)
	r := Regression{
		Coef: q.Coef, SE: make([]float64, k), Low: make([]float64, k), High: make([]float64, k),
		DF: df, Rho: rho, Bandwidth: bw, Cov: cov, OLS: ols,
	}
	for j := 0; j < k; j++ {
		r.SE[j] = math.Sqrt(math.Max(cov.At(j, j), 0))
		r.Low[j] = r.Coef[j] - tq*r.SE[j]
		r.High[j] = r.Coef[j] + tq*r.SE[j]
	}
	return r, nil
}

// lag1 returns the lag-1 autocorrelation Σuₜuₜ₋₁ / Σuₜ₋₁² (0 if undefined).
func lag1(u []float64) float64 {
	var sxy, sxx float64
	for t := 1; t < len(u); t++ {
		sxy += u[t] * u[t-1]
		sxx += u[t-1] * u[t-1]
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

func clip(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }
