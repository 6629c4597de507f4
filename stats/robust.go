package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// The grids of the profile likelihood of RegressRobust: φ, the AR(1)
// coefficient of the stationary part, and r, the random walk's share of the
// innovation variance. φ stops at 0.97: a random walk is r = 1, and φ → 1
// with r = 0 (the same process, written as a non-invertible MA in
// differences) identified the slope only from irregular lifecycle counts
// between samples, which on real kafka-20616 series gave absurd slopes
// (+285 KiB/lifecycle where levels give −1.4 ± 1.4 KiB).
var (
	gridPhi = []float64{-0.5, -0.25, 0, 0.2, 0.4, 0.55, 0.7, 0.8, 0.87, 0.92, 0.95, 0.97}
	gridR   = []float64{0, 0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.7, 0.85, 0.95, 1}
)

// lrRegion is half the 95% quantile of χ²(1): the log-likelihood drop that
// bounds the likelihood-ratio confidence region of (φ, r) over which
// RegressRobust takes the largest standard error. (χ²(2) and a denser r grid
// near 0 overcovered stationary series: 0.995–1.00 at n = 100–700. Measured
// again once the standard error was the estimate's own under each model, 400
// series per case of scripts/statscheck: r = 0.002 and 0.005 on the grid lift
// a random walk plus noise at n = 300 from 0.885 to 0.948 but cover AR(1)
// φ = 0.7 at n = 300 1.000 and cut stats.CompareFits' detection of 256 B at
// 500 lifecycles from 0.41 to 0.15; χ²(2) lifts it to 0.945 and cuts the
// leak at twice the floor's calls at n = 100 from 0.65 to 0.37.)
//
// Restricting the maximum to the profile over φ at r̂ plus the mostly-random-
// walk points (r ≥ 0.5) was measured too: it narrows AR(1) φ = 0.75
// intervals about 2.5× at n = 300 but covers a random walk plus noise only
// 0.65 at n = 100, so the full region is used.
//
// Next to the boundary r = 0, for a stationary part that is at most weakly
// autocorrelated, the cutoff is wider: 2·LR ≤ 5.0 (regionCutoff,
// lrRegionBoundary) for the stationary family's models with 0 < r ≤ 0.03
// and φ ≤ 0.2. There the likelihood is not regular: a random walk carrying
// 1% of the innovation variance plus white noise differences to an MA(1)
// with a root near the unit circle, whose likelihood piles up at r = 0, and
// with χ²₁'s cutoff the region left the true model out of 53 of 400 series
// of a random walk plus noise at n = 300, which were covered 0.49
// (TestRegressRobustRegionHoldsTruth). The bound on φ is what the first
// attempt lacked (below): an AR(1) with φ = 0.7 has its maximum near
// φ = 0.7, where models with φ ≤ 0.2 lie far below it, so its region does
// not change. Measured when adopted (scratch edit, statscheck -case, 400
// series per case, seed 11): the random walk plus noise covered 0.920
// (native heap, n = 300) and 0.922 (RSS, n = 100) against 0.885 and 0.887,
// and over 2,000 series at seeds 11 and 12, native heap at n = 300, 0.915
// and 0.923 (0.880 and 0.894 before); AR(1) φ = 0.7 unchanged at every n
// (0.983 at n = 300); the cost is white noise and the random walk plus
// noise at n = 100, native heap, covered 1.000 and 0.985 instead of 0.98
// and 0.92. With φ ≤ 0 instead of 0.2 the same cells gave the same figures.
//
// The first attempt, the same wider cutoff for every φ (2·LR ≤ 5.0 for
// stationary models with 0 < r ≤ 0.03, 3.84 elsewhere), was adopted at
// commit 2634b60 and reverted. There make stats-check (400 series per case)
// left no case below 0.90: the random walk plus noise 0.92 in both cells
// (0.915 and 0.923 over 2,000 series at seeds 11 and 12 for the native heap
// at n = 300, where χ²₁'s cutoff gives 0.880 and 0.894), every verdict rate
// as before but one (0.03 → 0.02), the early verdicts' table unchanged, a
// leak at twice the floor still called at n = 100 in 0.65 of runs; but
// stats.CompareFits found 256 B at 500 lifecycles in 0.17 of pairs instead
// of 0.41. Re-fitting the kept kafka-20616 early-verdict runs at their old
// stops left 7 of 80 leaky seeds inconclusive, but the --until-verdict line
// of make reliability, which looks again live, called all 20, its native
// heap one look later at 8 of 20 seeds (median 582.5 lifecycles against
// 486). What decided: it covers AR(1) φ = 0.7, the real native heap's kind
// of noise, 1.000 at n = 300 in TestRegressRobustCoverage (whose bound is
// 0.99; 0.99 in make stats-check, 0.98 here) and 0.995 in
// TestRegressRobustBatchCoverage, trading one side of the 0.90–0.98 goal for
// the other. No boundary cutoff between 3.84 and 5.0 satisfies both: 4.4 and
// 4.6 also cover that AR(1) case 1.000; 4.2 keeps it at 0.990 but covers the
// random walk plus noise (native heap, n = 300) 0.889 and 0.905 over 2,000
// series at seeds 11 and 12 (scratch edits, statscheck -case); 7.0 costs
// more.
//
// A minimax estimator (among the region's models, the GLS estimate whose
// largest variance over the region is smallest) changed no coverage by more
// than 0.01 with χ²(1)'s or χ²(2)'s cutoff (scratch edit, 8 cases × 400
// series): the overcoverage of stationary series at small n is the region's,
// not the estimate's.
//
// A joint profile-likelihood interval for each coefficient was measured as
// well (scratch edit, 400 series per case, seed 11): the hull over the grid of
// each model's GLS interval at the width its likelihood allows, β̂ₘ ±
// √(vₘ·SSRₘ·(e^{2(ℓₘ−c)/M} − 1)), vₘ the coefficient's element of
// (Z̃ᵀZ̃)⁻¹ under model m and c the overall maximum less (M/2)·log(1 + t²/df)
// (the Student-t interval when the grid has one model).
// For the native heap it covers AR(1) φ = 0.75 (the real runs' noise) 0.97–0.98
// at n = 100–300 instead of 0.99–1.00, white noise at n = 100 0.970, AR(1)
// φ = 0.95 at n = 100 0.922 (white noise at n = 40 and AR(1) φ = 0.7 at n = 100
// still 0.993 and 0.985), and calls a leak at twice the floor at n = 100 in
// 0.93 of runs instead of 0.65; but it covers a random walk plus noise 0.795
// at n = 100 and 0.853 at n = 300 (0.917 and 0.885 here), and the warm-up
// τ = 150 at n = 700 0.31 instead of 0.79 (100 series). Scaling its cutoff
// moves every case together: × 1.5 covers the random walk plus noise 0.938 and
// 0.927 and AR(1) φ = 0.75 at n = 300 0.998; × 2 for the models near the
// boundary only (0 < r ≤ 0.03), 0.983 and 0.960, and AR(1) φ = 0.7 and 0.75 at
// n = 100–300 0.998–1.000. On real runs it would change little: re-fitting
// the kafka-20616 sets 20261201T212557Z and 213736Z (the latter cut at its
// early stops) with it moves the native heap's median SE from 498 to 494 and
// from 1,653 to 1,644 B/lifecycle, with the same verdicts. So it is not used
// either: it trades the random walk plus noise for the stationary cases.
const lrRegion = 3.841 / 2

// lrRegionBoundary is the log-likelihood drop that bounds RegressRobust's
// region for the stationary family's models next to the boundary r = 0
// whose stationary part is at most weakly autocorrelated (regionCutoff):
// 2·LR ≤ 5.0 instead of 3.84 (see lrRegion).
const lrRegionBoundary = 5.0 / 2

// maxBoundaryR and maxBoundaryPhi bound the models that get
// lrRegionBoundary: 0 < r ≤ maxBoundaryR (grid values 0.01 and 0.03) and
// φ ≤ maxBoundaryPhi (grid values −0.5 to 0.2).
const (
	maxBoundaryR   = 0.03
	maxBoundaryPhi = 0.2
)

// regionCutoff is the log-likelihood drop below the overall maximum within
// which m belongs to RegressRobust's likelihood-ratio region:
// lrRegionBoundary for the stationary family's models with
// 0 < r ≤ maxBoundaryR and φ ≤ maxBoundaryPhi, lrRegion for every other.
func regionCutoff(m errorModel) float64 {
	if !m.integ && m.r > 0 && m.r <= maxBoundaryR && m.phi <= maxBoundaryPhi {
		return lrRegionBoundary
	}
	return lrRegion
}

// RegressRobust fits y = Xβ + u like Regress, with intervals that stay
// honest when u is strongly autocorrelated, a random walk, a random walk
// plus noise, or a random walk that moves in bursts, and at small n
// (measured in stats/simulate).
//
// Method (named for what it is): feasible GLS under an "AR(1) plus random
// walk" error model in two families, the error model chosen per series by
// the data. In both, uₜ = wₜ + vₜ with vₜ = φvₜ₋₁ + aₜ (stationary AR(1))
// and w a random walk taking share r of the innovation variance. In the
// stationary family w has white steps, wₜ = wₜ₋₁ + εₜ: white noise
// (φ = r = 0), AR(1) (r = 0), a random walk (r = 1) and a random walk plus
// noise (φ = 0, 0 < r < 1) are special cases. In the integrated family its
// steps are AR(1) with the same φ, wₜ = wₜ₋₁ + sₜ, sₜ = φsₜ₋₁ + εₜ (an
// integrated AR(1), ARIMA(1,1,0); 0 < φ < 0.9, r > 0): growth in bursts,
// busy and quiet periods, as RSS grows. A white-step random walk fitted to
// such a series reads the steps' variance, but a trend's error depends on
// their long-run variance, (1+φ)/(1−φ) times larger (9 at φ = 0.8).
//
// Step 1: the model is written in first differences, Δy = ΔX β + e, where
// the intercept drops out and eₜ = Δwₜ + vₜ − vₜ₋₁; applying (1 − φL)
// leaves an MA(1) error with autocovariances (unit scale)
// c₀ = r(1+φ²) + 2(1−r), c₁ = −rφ − (1−r) in the stationary family and
// c₀ = r + 2(1−r), c₁ = −(1−r) in the integrated one.
//
// Step 2: for each (family, φ, r) on a grid (φ from −0.5 to 0.97 and r from
// 0 to 1; in the integrated family φ from 0.2 to 0.87 and r > 0) the
// transformed model is whitened by the Cholesky factor of the tridiagonal
// MA(1) covariance, β is fitted by least squares, and the concentrated
// Gaussian log-likelihood −(M/2)·log(SSR/M) − ½·log det is computed
// (conditional on the first two samples).
//
// Step 3: β̂ is the GLS estimate at the stationary family's maximum, a
// linear estimator cᵀΔy. Its standard error is the largest, over the
// likelihood-ratio confidence region of the error model in both families
// (log-likelihood within χ²₁(0.95)/2 of the overall maximum; 5.0/2 for the
// stationary family's models next to r = 0 with φ ≤ 0.2, regionCutoff), of β̂'s
// standard error under that model, σ̂ₘ²·cᵀΣₘc (σ̂ₘ² = SSRₘ/(M − k − 2),
// Σₘ the differenced error's covariance under model m; estimatorVariance),
// and never below its own GLS standard error: a stationary AR(1) with φ
// near 1, a random walk and a random walk moving in bursts can fit a short
// series almost equally well but imply very different errors for a trend,
// and the data cannot choose, so the interval takes the least favourable
// one. Intervals are Student-t with DF = M − k − 2 (two estimated error
// parameters). Until this used β̂'s variance under each model, it took
// each model's own GLS standard error σ̂ₘ²(Z̃ₘᵀZ̃ₘ)⁻¹, the error of a
// different estimator (GLS at m, the best one under m, so never larger):
// on bursty growth at n = 40 that covered 0.83 (TestRegressRobustCoverage).
//
// Why the integrated family widens the interval but does not give the
// estimate (measured while choosing, with scripts/statscheck's simulated
// cases and on one 20-seed reliability run of kafka-20616): on simulated
// bursty RSS (φ = 0.8, n = 40–700) RSS coverage was 0.58–0.88 without the
// family and 0.84–0.98 with it, with the same leak calls at n ≥ 100.
// Taking the estimate from the integrated family's maximum too (where the
// likelihood puts most real RSS series) covered the simulated cases as
// well, but on the real runs RSS's across-seed SD of the slope rose from
// 4.0 to 5.2 KiB/lifecycle (leaky) and from 5.7 to 7.0 (fixed), and 3 of 20
// leaky seeds became inconclusive; the stationary family's estimate
// spreads less across seeds.
//
// Regression.Rho is φ̂ and RandomWalkShare r̂ of the stationary family's
// maximum; IntegratedAR says the overall maximum is in the integrated
// family (IntegratedPhi its φ); RandomWalkPlausible is true when the
// likelihood region holds a random walk (r ≥ 0.5 or φ ≥ 0.995, either
// family); Bandwidth is 0 (no kernel).
// Constant columns of X (the intercept) vanish in differences: their Coef
// is the levels OLS estimate and their SE 0. Errors as Regress, plus
// ErrSingular when no column of X varies.
func RegressRobust(X *mat.Dense, y []float64, confidence float64) (Regression, error) {
	return regressRobust(X, y, confidence, robustConfig{integrated: true})
}

// robustConfig selects the parts of regressRobust: the batch-means
// widening (RegressRobustBatch) and the integrated-AR(1) error family (on
// in both exported functions; off only in tests, as the negative control
// that shows what the family buys); likeliest takes every standard error
// under the likeliest error model of either family (never below the
// estimate's own GLS standard error), not the largest over the likelihood
// region: the curvature test of FlagSlows (slows), whose false rate on
// straight leaks is measured, not the intervals.
type robustConfig struct {
	batches, integrated bool
	likeliest           bool
	// calibrated replaces (not widens) each column's interval by the
	// batch-means one (RegressCalibrated).
	calibrated bool
}

// maxIntegratedPhi bounds φ in the integrated family (grid values 0.2 to
// 0.87). A random walk whose steps are AR(1) with φ near 1 is a trend that
// wanders, and the model's slope is then identified only through
// (1 − φ)·ΔL: with 0.92–0.97 in the family as well, the simulated leak of
// 11 KiB/lifecycle on bursty RSS was called at n = 100 in 0.65 of runs
// instead of 0.87, with no coverage gained (scripts/statscheck cases).
const maxIntegratedPhi = 0.9

// FitBatches is the number of batches of RegressRobustBatch's batch-means
// interval. Fewer batches are robust to longer bursts but cost power (t
// with FitBatches − 1 df, and a noisier standard error). Measured on the 20
// seeds of kafka-20616 (two runs): with 8, 12 and 16 batches RSS's
// across-seed spread/SE is 0.71–0.88, 0.62–0.94 and 0.62–0.95 (all within
// the goal of 1.5), but with 8 the leaky model's RSS interval included 0 at
// one seed of a fresh run (+20.6 KiB/lifecycle, SE 9.5 KiB, t with 7 df) and
// with 12 at none; on the simulated bursty RSS (increments AR(1) φ = 0.8),
// before RegressRobust had its integrated family, coverage at n = 300 was
// 0.87, 0.83 and 0.83. ComparePaired keeps
// DefaultBatches (8).
const FitBatches = 12

// RegressRobustBatch is RegressRobust with, for each varying column, the
// wider of two 95%-level intervals around the same GLS estimate: the
// profile-likelihood one of RegressRobust (SE, Student-t with DF) and a
// batch-means one (BatchSE, Student-t with BatchDF = FitBatches − 1).
//
// The batch-means standard error is a cluster (sandwich) estimator over
// batches, the fixed-b form of a long-run variance: the whitened rows of
// the GLS fit at (φ̂, r̂) are split into FitBatches consecutive batches
// of nearly equal count, each batch's score S_b = Σ_{t∈b} z̃ₜẽₜ is summed,
// and Var(β̂) = A⁻¹·(B/(B−1))·Σ_b S_b S_bᵀ·A⁻¹ with A = Z̃ᵀZ̃ and B batches;
// with a fixed number of large batches its t-statistic is Student-t with
// B − 1 df (Bester, Conley and Hansen 2011, "Inference with dependent data
// using cluster covariance estimators"). When the error model is right the
// whitened scores are uncorrelated and this standard error is close to the
// model's; when it is wrong in a way the likelihood cannot see (on
// kafka-20616 RSS, a slope that wanders within the run) the batch scores
// differ, and the interval widens. Taking the wider of the two keeps
// RegressRobust's allowance for a near unit root the batches cannot see in a
// short series. ColDF holds each column's df; Method is IntervalRobustBatch.
// With fewer than 2·FitBatches whitened rows there are no batches and
// the interval is RegressRobust's.
func RegressRobustBatch(X *mat.Dense, y []float64, confidence float64) (Regression, error) {
	return regressRobust(X, y, confidence, robustConfig{batches: true, integrated: true})
}

// CalibratedMinSamples is the shortest series (samples) on which
// RegressCalibrated's interval is the batch-means one; below it, 12 batches
// are too short to see a near unit root and the interval is RegressRobust's.
// Chosen by simulation (scripts/statscheck, docs/methods.md, "The calibrated
// interval of the native heap").
const CalibratedMinSamples = 100

// RegressCalibrated fits y = Xβ + u as RegressRobust does (the same GLS
// estimate, the same error-model search, flags and fields) and gives each
// varying column the batch-means interval of that estimate alone: the
// whitened rows of the GLS fit are split into FitBatches consecutive batches,
// and Var(β̂) = A⁻¹·(B/(B−1))·Σ_b S_b S_bᵀ·A⁻¹ (the cluster, fixed-b
// estimator of RegressRobustBatch), Student-t with FitBatches − 1 df
// (ColDF). Unlike RegressRobustBatch it does not take the wider of this and
// the likelihood region's largest standard error: the batches measure the
// estimate's variability from the data themselves, where the region's
// maximum is the least favourable error model the likelihood cannot rule
// out. On series shorter than CalibratedMinSamples samples (or too short
// for batches) the interval is RegressRobust's. Method is
// IntervalCalibrated either way.
//
// Why (issue 29): on 20 seeds of kafka-20616 the native heap's slope
// spread across seeds 0.46–0.47 times RegressRobust's median standard error
// (and the legacy Newey–West one), so its intervals were about twice as wide
// as the data need; the batch-means one brings the ratio to about 0.8, and
// every case of scripts/statscheck stays covered at least 0.90 (measured:
// docs/methods.md).
func RegressCalibrated(X *mat.Dense, y []float64, confidence float64) (Regression, error) {
	n, _ := X.Dims()
	if n < CalibratedMinSamples {
		r, err := RegressRobust(X, y, confidence)
		r.Method = IntervalCalibrated
		return r, err
	}
	return regressRobust(X, y, confidence, robustConfig{batches: true, integrated: true, calibrated: true})
}

func regressRobust(X *mat.Dense, y []float64, confidence float64, cfg robustConfig) (Regression, error) {
	batches := cfg.batches
	n, k := X.Dims()
	if n != len(y) {
		return Regression{}, fmt.Errorf("stats: RegressRobust: X has %d rows, y has %d values", n, len(y))
	}
	if !(confidence > 0 && confidence < 1) {
		return Regression{}, fmt.Errorf("stats: RegressRobust: confidence %v not in (0, 1)", confidence)
	}
	dd, err := newDifferenced(X, y, "RegressRobust")
	if err != nil {
		return Regression{}, err
	}
	ols, keep, d, z := dd.ols, dd.keep, dd.d, dd.z
	kq, M := len(keep), dd.M
	g := newGLS(M, kq)
	df := float64(M - kq - 2)
	phis, rs := gridPhi, gridR
	if residScale(ols.Resid) <= 1e-9*yScale(y) {
		// An exact line (residuals at rounding level): no error model to
		// choose, and a random walk must not be read into rounding.
		phis, rs = []float64{0}, []float64{0}
	}
	pts, best, est := searchGrid(g, d, z, errorModels(phis, rs, cfg.integrated), df)
	// The estimate is the GLS estimate at the stationary family's maximum;
	// the integrated family enters the standard error only (see
	// RegressRobust). Without a stationary point (best < 0 implies est < 0)
	// there is no estimate.
	if est < 0 {
		return Regression{}, fmt.Errorf("%w: the differenced design is rank deficient", ErrSingular)
	}
	bPhi, bR := pts[est].phi, pts[est].r
	if _, ok := g.fitFamily(d, z, bPhi, bR, false); !ok {
		return Regression{}, fmt.Errorf("%w: the differenced design is rank deficient", ErrSingular)
	}
	var bse []float64
	if batches {
		bse = g.batchSE(FitBatches)
	}
	// Standard errors: the largest over the likelihood-ratio region (seScales).
	scale, rwPlausible := seScales(g, pts, best, errorModel{bPhi, bR, false}, df, cfg.likeliest)
	s2 := g.ssr / df
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + confidence/2)
	r := Regression{
		Coef: append([]float64(nil), ols.Coef...), SE: make([]float64, k), Low: make([]float64, k), High: make([]float64, k),
		DF: df, Rho: bPhi, RandomWalkShare: bR, Cov: mat.NewSymDense(k, nil), OLS: ols,
		Method: IntervalRobust, RandomWalkPlausible: rwPlausible,
	}
	if pts[best].integ {
		r.IntegratedAR, r.IntegratedPhi = true, pts[best].phi
	}
	for a, i := range keep {
		r.Coef[i] = g.beta[a]
		for b, j := range keep {
			if j >= i {
				r.Cov.SetSym(i, j, s2*g.inv.At(a, b)*scale[a]*scale[b])
			}
		}
	}
	if batches {
		r.BatchSE = make([]float64, k)
		for a, i := range keep {
			if bse != nil {
				r.BatchSE[i] = bse[a]
			}
		}
		r.BatchDF = FitBatches - 1
	}
	for j := 0; j < k; j++ {
		r.SE[j] = math.Sqrt(math.Max(r.Cov.At(j, j), 0))
		r.Low[j] = r.Coef[j] - tq*r.SE[j]
		r.High[j] = r.Coef[j] + tq*r.SE[j]
	}
	if batches {
		applyBatches(&r, confidence, keep, scale, cfg.calibrated)
	}
	return r, nil
}
