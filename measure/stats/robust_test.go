package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randomWalk(r *rand.Rand, n int, sd float64) []float64 {
	e := make([]float64, n)
	var w float64
	for i := range e {
		w += r.NormFloat64() * sd
		e[i] = w
	}
	return e
}

// TestRegressRobustCoverage: the 95% interval of RegressRobust covers the
// true slope in 0.90–0.99 of 200 series for the error structures the
// signals show (the full table is make stats-check; near a unit root and at
// small n it is conservative, up to 1.00, so only the lower bound is
// asserted there), where Regress (the original Cochrane–Orcutt +
// Newey–West) misses a random walk badly: the negative control that shows
// the check can fail.
func TestRegressRobustCoverage(t *testing.T) {
	const reps, slope = 200, 500.0
	tests := []struct {
		name      string
		n         int
		noise     func(r *rand.Rand, n int) []float64
		hi        float64 // upper bound on RegressRobust's coverage
		legacyMax float64 // Regress must cover less than this (0: not checked)
	}{
		{"white n=300", 300, func(r *rand.Rand, n int) []float64 { return ar1(r, n, 0, 2e4) }, 0.99, 0},
		{"AR(1) φ=0.7 n=300", 300, func(r *rand.Rand, n int) []float64 { return ar1(r, n, 0.7, 2e4) }, 0.99, 0},
		{"AR(1) φ=0.95 n=100", 100, func(r *rand.Rand, n int) []float64 { return ar1(r, n, 0.95, 1e4) }, 1, 0.8},
		{"random walk n=300", 300, func(r *rand.Rand, n int) []float64 { return randomWalk(r, n, 2e4) }, 0.99, 0.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := seeded(99)
			L := make([]float64, tt.n)
			for i := range L {
				L[i] = 2 * float64(i)
			}
			X := design(L)
			var rob, leg int
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
			}
			cr, cl := float64(rob)/reps, float64(leg)/reps
			t.Logf("coverage: RegressRobust %.3f, Regress %.3f", cr, cl)
			assert.GreaterOrEqual(t, cr, 0.90)
			assert.LessOrEqual(t, cr, tt.hi)
			if tt.legacyMax > 0 {
				assert.Less(t, cl, tt.legacyMax, "Regress should undercover here")
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
