package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/montecarlo"
)

func randomWalk(r *rand.Rand, n int, sd float64) []float64 {
	e := make([]float64, n)
	for i := range e {
		e[i] = r.NormFloat64() * sd
	}
	return integrated(e)
}

// twoLifecyclesPerSample is the lifecycle count of n samples taken every
// two lifecycles and the design (intercept, lifecycles) over it.
func twoLifecyclesPerSample(n int) ([]float64, *mat.Dense) {
	L := make([]float64, n)
	for i := range L {
		L[i] = 2 * float64(i)
	}
	return L, design(L)
}

// integrated replaces x by its running sums (the walk whose steps x are)
// and returns it.
func integrated(x []float64) []float64 {
	var w float64
	for i := range x {
		w += x[i]
		x[i] = w
	}
	return x
}

// TestRegressRobustCoverage: the 95% interval of RegressRobust covers the
// true slope in 0.90–0.99 of 200 series for the error structures the
// signals show (the full table is make stats-check; near a unit root and at
// small n it is conservative, up to 1.00, so only the lower bound is
// asserted there), where Regress (the original Cochrane–Orcutt +
// Newey–West) misses a random walk badly, and where RegressRobust without
// its integrated family (the stationary family alone) misses growth in
// bursts: the negative controls that show the check can fail.
func TestRegressRobustCoverage(t *testing.T) {
	montecarlo.SkipInShort(t)
	const reps, slope = 200, 500.0
	tests := []struct {
		name      string
		n         int
		noise     func(r *rand.Rand, n int) []float64
		hi        float64 // upper bound on RegressRobust's coverage
		legacyMax float64 // Regress must cover less than this (0: not checked)
		statMax   float64 // the stationary family alone must cover less than this (0: not checked)
	}{
		{"white n=300", 300, func(r *rand.Rand, n int) []float64 { return ar1(r, n, 0, 2e4) }, 0.99, 0, 0},
		{"AR(1) φ=0.7 n=300", 300, func(r *rand.Rand, n int) []float64 { return ar1(r, n, 0.7, 2e4) }, 0.99, 0, 0},
		{"AR(1) φ=0.95 n=100", 100, func(r *rand.Rand, n int) []float64 { return ar1(r, n, 0.95, 1e4) }, 1, 0.8, 0},
		{"random walk n=300", 300, func(r *rand.Rand, n int) []float64 { return randomWalk(r, n, 2e4) }, 0.99, 0.6, 0},
		// The estimate is the stationary family's; at n = 40 the integrated
		// family's own GLS standard error (the error of another estimator)
		// covered it 0.87 (the estimate's standard error under each model
		// of the region, estimatorVariance, is what covers it).
		{"bursty growth φ=0.8 n=40", 40, func(r *rand.Rand, n int) []float64 { return burstyGrowth(r, n, 0.8, 2e4) }, 1, 0, 0},
		{"bursty growth φ=0.8 n=100", 100, func(r *rand.Rand, n int) []float64 { return burstyGrowth(r, n, 0.8, 2e4) }, 1, 0, 0.8},
		{"bursty growth φ=0.7 n=300", 300, func(r *rand.Rand, n int) []float64 { return burstyGrowth(r, n, 0.7, 2e4) }, 0.99, 0, 0.8},
		{"bursty growth φ=0.8 n=700", 700, func(r *rand.Rand, n int) []float64 { return burstyGrowth(r, n, 0.8, 2e4) }, 0.99, 0, 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := seeded(99)
			L, X := twoLifecyclesPerSample(tt.n)
			var rob, leg, stat int
			for range reps {
				e := tt.noise(r, tt.n)
				y := make([]float64, tt.n)
				for i := range y {
					y[i] = 1e7 + slope*L[i] + e[i]
				}
				a, err := RegressRobust(X, y, 0.95)
				require.NoError(t, err)
				if a.Low[1] <= slope && slope <= a.High[1] {
					rob++
				}
				b, err := Regress(X, y, 0.95)
				require.NoError(t, err)
				if b.Low[1] <= slope && slope <= b.High[1] {
					leg++
				}
				c, err := regressRobust(X, y, 0.95, robustConfig{})
				require.NoError(t, err)
				if c.Low[1] <= slope && slope <= c.High[1] {
					stat++
				}
			}
			cr, cl, cs := float64(rob)/reps, float64(leg)/reps, float64(stat)/reps
			t.Logf("coverage: RegressRobust %.3f, Regress %.3f, stationary family alone %.3f", cr, cl, cs)
			assert.GreaterOrEqual(t, cr, 0.90)
			assert.LessOrEqual(t, cr, tt.hi)
			if tt.legacyMax > 0 {
				assert.Less(t, cl, tt.legacyMax, "Regress should undercover here")
			}
			if tt.statMax > 0 {
				assert.Less(t, cs, tt.statMax, "the stationary family alone should undercover here")
			}
		})
	}
}

func TestRegressRobustErrors(t *testing.T) {
	_, err := RegressRobust(design([]float64{1, 2, 3}), []float64{1, 2}, 0.95)
	assert.Error(t, err)
	_, err = RegressRobust(design([]float64{1, 2, 3, 4, 5, 6, 7, 8}), make([]float64, 8), 1.5)
	assert.Error(t, err)
	_, err = RegressRobust(design([]float64{1, 2, 3}), []float64{1, 2, 3}, 0.95)
	assert.Error(t, err, "too few rows")
	L := []float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}
	_, err = RegressRobust(design(L), make([]float64, 10), 0.95)
	assert.ErrorIs(t, err, ErrSingular)
}

// TestFitSignalConstantNoRandomWalk: an exactly constant signal (and one
// that only steps by whole pages now and then) carries no random-walk flag
// or warning under either interval method.
func TestFitSignalConstantNoRandomWalk(t *testing.T) {
	for _, m := range []IntervalMethod{IntervalCochraneOrcutt, IntervalRobust} {
		opt := DefaultOptions()
		opt.Interval = m
		f, err := FitSignal(synth(300, nil, nil), opt)
		require.NoError(t, err)
		assert.False(t, f.HasFlag(FlagRandomWalk), "%v: %q", m, f.Warnings)
		assert.False(t, f.HasFlag(FlagRandomWalkModelled), "%v: %q", m, f.Warnings)
		assert.False(t, hasWarning(f.Warnings, "random walk"), "%v: %q", m, f.Warnings)
		assert.True(t, f.PerLifecycle.Valid, "%v", m)
		assert.InDelta(t, 0.0, f.PerLifecycle.Value, 1e-6, "%v", m)
	}
}

// TestFitSignalRandomWalkModelled: a random-walk RSS is flagged as modelled
// (informational) with IntervalRobust, and as an unmodelled random walk
// (blocking) with the original method.
func TestFitSignalRandomWalkModelled(t *testing.T) {
	in := synth(400, line(4000), randomWalk(seeded(3), 400, 2e4))
	opt := DefaultOptions()
	f, err := FitSignal(in, opt)
	require.NoError(t, err)
	assert.True(t, f.HasFlag(FlagRandomWalk), "%q", f.Warnings)
	opt.Interval = IntervalRobust
	f, err = FitSignal(in, opt)
	require.NoError(t, err)
	assert.True(t, f.HasFlag(FlagRandomWalkModelled), "%q", f.Warnings)
	assert.False(t, f.HasFlag(FlagRandomWalk), "%q", f.Warnings)
}

func TestWelchDF(t *testing.T) {
	// Equal SEs and dfs: df doubles.
	assert.InDelta(t, 20.0, welchDF(1, 10, 1, 10), 1e-9)
	// A dominant term: df is close to its own.
	assert.InDelta(t, 10.0, welchDF(10, 10, 0.01, 1000), 0.01)
	assert.GreaterOrEqual(t, welchDF(0, 5, 0, 7), 1.0)
	assert.False(t, math.IsInf(welchDF(1, math.Inf(1), 1, 10), 0))
}

// burstyGrowth is an integrated AR(1): uₜ = uₜ₋₁ + aₜ with aₜ = φaₜ₋₁ + εₜ,
// so growth comes in bursts (busy and quiet periods: the rate wanders
// around its mean and each run's average rate differs), which the AR(1) +
// random walk error model cannot represent (its increments are never
// positively autocorrelated).
func burstyGrowth(r *rand.Rand, n int, phi, sd float64) []float64 {
	return integrated(ar1(r, n, phi, sd))
}

// TestRegressRobustBatchCoverage: the batch-means widening is the fallback
// for an error model the likelihood gets wrong. Where growth comes in bursts
// (burstyGrowth: the rate wanders around its mean within a run, so each
// run's average rate differs from the expected slope, the truth here) and
// the error model is misspecified (the stationary family alone, without the
// integrated one that represents bursts), the profile-likelihood interval
// covers the expected slope far less than 95% (the negative control: the
// check can fail) and the batch-means widening of the same fit recovers
// most of it; RegressRobustBatch, on the same series, covers 0.90–0.99; on
// a stationary AR(1) and a random walk it holds too; and its interval is
// never narrower than RegressRobust's.
func TestRegressRobustBatchCoverage(t *testing.T) {
	montecarlo.SkipInShort(t)
	const reps, slope = 200, 500.0
	tests := []struct {
		name      string
		n         int
		noise     func(r *rand.Rand, L []float64) []float64
		statMax   float64 // the stationary family alone must cover less than this (0: not checked)
		statBatch float64 // and the stationary family with the widening at least this
	}{
		{"AR(1) φ=0.7 n=300", 300, func(r *rand.Rand, L []float64) []float64 { return ar1(r, len(L), 0.7, 2e4) }, 0, 0},
		{"random walk n=300", 300, func(r *rand.Rand, L []float64) []float64 { return randomWalk(r, len(L), 2e4) }, 0, 0},
		{"bursty growth φ=0.7 n=300", 300, func(r *rand.Rand, L []float64) []float64 { return burstyGrowth(r, len(L), 0.7, 2e4) }, 0.8, 0.8},
		{"bursty growth φ=0.8 n=700", 700, func(r *rand.Rand, L []float64) []float64 { return burstyGrowth(r, len(L), 0.8, 2e4) }, 0.8, 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := seeded(11)
			L, X := twoLifecyclesPerSample(tt.n)
			var rob, bat, batchKept, stat, statB int
			for range reps {
				y := trendPlus(slope, L, tt.noise(r, L))
				a, err := RegressRobust(X, y, 0.95)
				require.NoError(t, err)
				b, err := RegressRobustBatch(X, y, 0.95)
				require.NoError(t, err)
				require.Equal(t, a.Coef[1], b.Coef[1], "the same GLS estimate")
				require.GreaterOrEqual(t, b.High[1]-b.Low[1], a.High[1]-a.Low[1]-1e-9, "never narrower")
				// Where the batch-means interval is kept, it stays the wider
				// at the levels of early looks too (two-sided 99.99%).
				if b.DFOf(1) == b.BatchDF {
					tail := func(se, df float64) float64 {
						return se * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.99995)
					}
					require.GreaterOrEqual(t, tail(b.SE[1], b.DFOf(1)), tail(a.SE[1], a.DF))
					batchKept++
				}
				if a.Low[1] <= slope && slope <= a.High[1] {
					rob++
				}
				if b.Low[1] <= slope && slope <= b.High[1] {
					bat++
				}
				if tt.statMax > 0 {
					c, err := regressRobust(X, y, 0.95, robustConfig{})
					require.NoError(t, err)
					if c.Low[1] <= slope && slope <= c.High[1] {
						stat++
					}
					d, err := regressRobust(X, y, 0.95, robustConfig{batches: true})
					require.NoError(t, err)
					if d.Low[1] <= slope && slope <= d.High[1] {
						statB++
					}
				}
			}
			cr, cb := float64(rob)/reps, float64(bat)/reps
			cs, csb := float64(stat)/reps, float64(statB)/reps
			t.Logf("coverage: RegressRobust %.3f, RegressRobustBatch %.3f (batch-means interval kept in %d of %d)", cr, cb, batchKept, reps)
			if tt.statMax > 0 {
				t.Logf("stationary family alone %.3f, with the widening %.3f", cs, csb)
			}
			assert.GreaterOrEqual(t, cb, 0.90)
			assert.LessOrEqual(t, cb, 0.99)
			if tt.statMax > 0 {
				assert.Less(t, cs, tt.statMax, "the stationary family alone should undercover here")
				assert.GreaterOrEqual(t, csb, tt.statBatch, "the widening should recover most of the coverage")
			}
		})
	}
}

// TestRegressRobustRegionHoldsTruth: RegressRobust's interval takes the largest SE over the likelihood-ratio region
// of its error model, so where that region holds the true error model the interval covers the slope at about its
// nominal level. The series are make stats-check's hardest native-heap case, a random walk plus white noise at
// n = 300 (white noise 30 KB, random-walk steps 3 KB: φ = 0, r ≈ 0.01 on the grid): the interval covers ≥ 0.93 of the
// series whose region holds (φ, r) = (0, 0.01), and ≥ 0.90 of all of them. The log says how often the region leaves
// the truth out and how those series are covered. The boundary's wider cutoff (regionCutoff) puts the truth in the
// region of ≥ 0.90 of the series and of more of them than the interior cutoff (lrRegion) would. Negative controls:
// with the SE of the estimate's own model alone, without the maximum over the region, the first assertion fails
// (coverage below 0.93 of the same series); with lrRegionBoundary set to lrRegion, the comparison fails. (Its
// overcoverage is bounded by TestRegressRobustCoverage: with maxBoundaryPhi at 1, every φ, AR(1) φ = 0.7 at n = 300
// is covered 1.000, above that test's bound.)
func TestRegressRobustRegionHoldsTruth(t *testing.T) {
	montecarlo.SkipInShort(t)
	const n, reps, slope = 300, 400, 500.0
	r := seeded(7)
	L, X := twoLifecyclesPerSample(n)
	z := [][]float64{differences(L)}
	g := newGLS(n-2, 1)
	var in, inInterior, inCovered, inCoveredOwn, outCovered int
	for range reps {
		w := randomWalk(r, n, 3e3)
		y := make([]float64, n)
		for i := range y {
			y[i] = 1e7 + slope*L[i] + w[i] + 30e3*r.NormFloat64()
		}
		reg, err := RegressRobust(X, y, 0.95)
		require.NoError(t, err)
		covered := reg.Low[1] <= slope && slope <= reg.High[1]
		d := differences(y)
		_, best, ok := likeliestErrorModel(d, z)
		require.True(t, ok)
		llTruth, ok := g.fitFamily(d, z, 0, 0.01, false)
		require.True(t, ok)
		if best-llTruth <= lrRegion {
			inInterior++
		}
		if best-llTruth > regionCutoff(errorModel{0, 0.01, false}) {
			if covered {
				outCovered++
			}
			continue
		}
		in++
		if covered {
			inCovered++
		}
		_, ok = g.fitFamily(d, z, reg.Rho, reg.RandomWalkShare, false)
		require.True(t, ok)
		own := math.Sqrt(g.ssr / reg.DF * g.inv.At(0, 0))
		tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: reg.DF}.Quantile(0.975)
		if math.Abs(reg.Coef[1]-slope) <= tq*own {
			inCoveredOwn++
		}
	}
	out := reps - in
	t.Logf("the region holds the truth in %d of %d series: covered %.3f there (%.3f with the estimate's own model's SE); "+
		"left out in %d: covered %.3f there", in, reps, float64(inCovered)/float64(in), float64(inCoveredOwn)/float64(in),
		out, float64(outCovered)/float64(max(out, 1)))
	all := float64(inCovered+outCovered) / reps
	t.Logf("covered %.3f of all %d series; the interior cutoff would hold the truth in %d", all, reps, inInterior)
	assert.GreaterOrEqual(t, float64(inCovered)/float64(in), 0.93)
	assert.GreaterOrEqual(t, all, 0.90)
	assert.GreaterOrEqual(t, float64(in)/reps, 0.90)
	assert.Greater(t, in, inInterior, "the boundary's cutoff should hold the truth more often than the interior one")
	assert.Less(t, float64(inCoveredOwn)/float64(in), 0.93, "without the maximum over the region the check should fail")
}

// TestRegressCalibratedCovers: the calibrated interval (RegressCalibrated, the native heap's) keeps RegressRobust's
// estimate and, where the likelihood region does not widen RegressRobust's interval, replaces it by the batch-means
// one. It must cover the slope at least 0.90 on AR(1) noise at n = 600 (the real native heap's length: kafka-20616 at
// 1,500 lifecycles fits 500–620 samples) and on a random walk plus white noise at n = 300 (make stats-check's hardest
// native case). The log gives its median SE over RegressRobust's (on these simulated series the region widens in most
// runs, so about 1; on the real native heap it does not: 0.63, docs/findings.md, 2026-12-03). Shown failing: with
// batch means in every column (no switch), the random walk plus noise is covered 0.893 here and 0.77 in statscheck's
// case at n = 300 (batch means cannot see the walk in 12 batches).
func TestRegressCalibratedCovers(t *testing.T) {
	montecarlo.SkipInShort(t)
	const reps, slope = 150, 500.0
	tests := []struct {
		name  string
		n     int
		noise func(r *rand.Rand, L []float64) []float64
	}{
		{"AR(1) φ=0.75 n=600", 600, func(r *rand.Rand, L []float64) []float64 { return ar1(r, len(L), 0.75, 3e4) }},
		{"AR(1) φ=0.4 n=600", 600, func(r *rand.Rand, L []float64) []float64 { return ar1(r, len(L), 0.4, 3e4) }},
		{"random walk + noise n=300", 300, func(r *rand.Rand, L []float64) []float64 {
			w, e := randomWalk(r, len(L), 3e3), ar1(r, len(L), 0, 3e4)
			for i := range w {
				w[i] += e[i]
			}
			return w
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := seeded(29)
			L, X := twoLifecyclesPerSample(tt.n)
			var cover int
			var ratios []float64
			for range reps {
				y := trendPlus(slope, L, tt.noise(r, L))
				a, err := RegressRobust(X, y, 0.95)
				require.NoError(t, err)
				c, err := RegressCalibrated(X, y, 0.95)
				require.NoError(t, err)
				require.Equal(t, a.Coef[1], c.Coef[1], "the same GLS estimate")
				require.Equal(t, IntervalCalibrated, c.Method)
				if c.Low[1] <= slope && slope <= c.High[1] {
					cover++
				}
				ratios = append(ratios, c.SE[1]/a.SE[1])
			}
			cov, med := float64(cover)/reps, Median(ratios)
			t.Logf("calibrated coverage %.3f, median SE / RegressRobust's %.2f", cov, med)
			assert.GreaterOrEqual(t, cov, 0.90)
		})
	}
}

// trendPlus is 10 MB + slope·L plus the noise e, sample by sample.
func trendPlus(slope float64, L, e []float64) []float64 {
	y := make([]float64, len(L))
	for i := range y {
		y[i] = 1e7 + slope*L[i] + e[i]
	}
	return y
}

// TestRegressCalibratedShortSeries: below CalibratedMinSamples the calibrated interval is RegressRobust's.
func TestRegressCalibratedShortSeries(t *testing.T) {
	r := seeded(3)
	L, X := twoLifecyclesPerSample(CalibratedMinSamples - 1)
	y := trendPlus(500, L, ar1(r, len(L), 0.75, 3e4))
	a, err := RegressRobust(X, y, 0.95)
	require.NoError(t, err)
	c, err := RegressCalibrated(X, y, 0.95)
	require.NoError(t, err)
	assert.Equal(t, a.SE, c.SE)
	assert.Equal(t, a.Low, c.Low)
	assert.Equal(t, IntervalCalibrated, c.Method)
}
