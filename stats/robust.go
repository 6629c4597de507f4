package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// IntervalMethod selects how FitSignal computes its confidence intervals.
type IntervalMethod int

const (
	// IntervalCochraneOrcutt (the zero value, kept so that existing
	// results do not change until callers opt in) is Regress: one-step
	// Cochrane–Orcutt feasible GLS with ρ̂ clipped to 0.97, Newey–West on
	// the quasi-differenced model, Student-t with n−k−1 degrees of freedom.
	// Measured (scripts/statscheck): it undercovers at small n and badly
	// under random-walk errors.
	IntervalCochraneOrcutt IntervalMethod = iota
	// IntervalRobust is RegressRobust: feasible GLS under an AR(1) plus
	// random walk error model fitted by profile likelihood, Student-t
	// intervals.
	IntervalRobust
	// IntervalRobustBatch is RegressRobustBatch: RegressRobust's GLS
	// estimate with the wider of two intervals, its own (profile-likelihood
	// region, Student-t with M − k − 2 df) and a batch-means (cluster,
	// fixed-b) interval of the same estimate (FitBatches batches,
	// Student-t with FitBatches − 1 df). Measured before RegressRobust had
	// its integrated (bursty) error family: the robust interval alone
	// reported an RSS standard error 4–7× smaller than the slope's spread
	// across seeds of kafka-20616, and, with restored records as a
	// regressor, still 1.1–1.4× smaller; this one held (0.74–1.00). The
	// tool uses it for RSS (analysis.OptionsFor) as a safeguard for an
	// error model the likelihood gets wrong (TestRegressRobustBatchCoverage:
	// on bursty growth fitted without the integrated family it lifts
	// coverage from about 0.55 to 0.90 or more).
	IntervalRobustBatch
	// IntervalCalibrated is RegressCalibrated: RegressRobust's GLS
	// estimate with a batch-means interval alone (FitBatches batches,
	// Student-t with FitBatches − 1 df) on series of at least
	// CalibratedMinSamples samples, RegressRobust's interval on shorter
	// ones. The tool uses it for the native heap (analysis.OptionsFor),
	// whose RegressRobust standard error was about twice the slope's
	// spread across 20 seeds of kafka-20616 (issue 29).
	IntervalCalibrated
)

// String names the method.
func (m IntervalMethod) String() string {
	switch m {
	case IntervalCochraneOrcutt:
		return "Cochrane–Orcutt FGLS + Newey–West, Student-t"
	case IntervalRobust:
		return "GLS under an AR(1) + random walk error model (profile likelihood), Student-t"
	case IntervalRobustBatch:
		return "GLS under an AR(1) + random walk error model; the wider of its profile-likelihood interval and a batch-means interval (12 batches, Student-t with 11 df)"
	case IntervalCalibrated:
		return "GLS under an AR(1) + random walk error model; a batch-means interval (12 batches, Student-t with 11 df), the profile-likelihood interval below 100 samples"
	}
	return fmt.Sprintf("IntervalMethod(%d)", int(m))
}

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
	type point struct {
		errorModel
		ll float64
		s2 float64 // the innovation scale σ̂² = SSR/df under this model
	}
	var pts []point
	best, est := -1, -1
	for _, m := range errorModels(phis, rs, cfg.integrated) {
		ll, ok := g.fitFamily(d, z, m.phi, m.r, m.integ)
		if !ok {
			continue
		}
		pts = append(pts, point{m, ll, g.ssr / df})
		if best < 0 || ll > pts[best].ll {
			best = len(pts) - 1
		}
		if !m.integ && (est < 0 || ll > pts[est].ll) {
			est = len(pts) - 1
		}
	}
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
	// Standard errors: the largest over the likelihood-ratio confidence
	// region of (φ, r) of the estimate's standard error under that error
	// model, so that a near-unit-root series the likelihood cannot tell
	// from a random walk gets the random walk's error (cfg.likeliest: the
	// likeliest model's alone).
	var region []point
	rwPlausible := false
	for _, p := range pts {
		if pts[best].ll-p.ll <= regionCutoff(p.errorModel) {
			region = append(region, p)
			if p.r >= 0.5 || p.phi >= 0.995 {
				rwPlausible = true
			}
		}
	}
	if cfg.likeliest {
		region = []point{pts[best]}
	}
	scale := make([]float64, kq)
	acf := estimatorAutocorr(g, errorModel{bPhi, bR, false})
	s2est := g.ssr / df
	for a := range scale {
		base := math.Sqrt(math.Max(s2est*g.inv.At(a, a), 0))
		maxSE := base
		for _, p := range region {
			v := p.s2 * estimatorVariance(acf[a], p.errorModel)
			maxSE = math.Max(maxSE, math.Sqrt(math.Max(v, 0)))
		}
		scale[a] = 1
		if base > 0 {
			scale[a] = maxSE / base
		}
	}
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
	switch {
	case batches && cfg.calibrated:
		r.Method = IntervalCalibrated
		widen := make([]bool, k)
		for a, i := range keep {
			widen[i] = scale[a] > 1+1e-9
		}
		useBatches(&r, confidence, widen)
	case batches:
		r.Method = IntervalRobustBatch
		useBatches(&r, confidence, nil)
	}
	return r, nil
}

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
