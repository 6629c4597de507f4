package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/montecarlo"
)

func TestCompareFits(t *testing.T) {
	model, control := fitWith(200, 312, 50), fitWith(-40, 40, 80)
	d := CompareFits(model, control, CompareOptions{})
	assert.Equal(t, VerdictLeak, d.Verdict, d.Reason)
	assert.Greater(t, d.Estimate.Low, 0.0)
	assert.Empty(t, d.Withheld, "a verdict from its interval alone")
	// Welch–Satterthwaite df from the fits' own dfs: between min and sum.
	assert.Greater(t, d.Estimate.DF, 50.0)
	assert.Less(t, d.Estimate.DF, 130.0)
	assert.InDelta(t, math.Hypot(model.PerLifecycle.SE, control.PerLifecycle.SE), d.Estimate.SE, 1e-9)
	// A/A: no call.
	aa := CompareFits(fitWith(-30, 50, 50), fitWith(-40, 40, 80), CompareOptions{})
	assert.Equal(t, VerdictInconclusive, aa.Verdict, aa.Reason)
	assert.Contains(t, aa.Reason, "includes 0 B/lifecycle")
	// The model growing less than the control: no call, and the reason says where the interval lies (it does not
	// include the margin).
	less := CompareFits(fitWith(-40, 40, 80), model, CompareOptions{})
	assert.Equal(t, VerdictInconclusive, less.Verdict, less.Reason)
	assert.Less(t, less.Estimate.High, 0.0)
	assert.Contains(t, less.Reason, "lies below")
	assert.NotContains(t, less.Reason, "includes")
	// Equivalence within a margin.
	eq := CompareFits(fitWith(-30, 50, 50), fitWith(-40, 40, 80), CompareOptions{Margin: 200})
	assert.Equal(t, VerdictNoLeak, eq.Verdict, eq.Reason)
	// Between-run variation widens the interval: the same leak, no call.
	wide := CompareFits(model, control, CompareOptions{BetweenRunSD: 200})
	assert.Equal(t, VerdictInconclusive, wide.Verdict, wide.Reason)
	assert.Greater(t, wide.Estimate.SE, d.Estimate.SE)
	// A Newey–West SE counts with the Bartlett window's equivalent df,
	// 3·Used/S, not raw n − k: a long bandwidth lowers the df.
	hac := model
	hac.Bandwidth, hac.SamplesUsed = 30, 100
	h := CompareFits(hac, control, CompareOptions{})
	assert.Less(t, h.Estimate.DF, d.Estimate.DF)
	assert.InDelta(t, welchDF(model.PerLifecycle.SE, 10, control.PerLifecycle.SE, 80), h.Estimate.DF, 1e-9)
	// A blocking flag on either side: inconclusive though the interval lies
	// above 0, and Withheld names the flag and its fit.
	fl := CompareFits(fitWith(200, 312, 50, FlagWarmupAtLimit), control, CompareOptions{})
	assert.Equal(t, VerdictInconclusive, fl.Verdict, fl.Reason)
	assert.Greater(t, fl.Estimate.Low, 0.0)
	assert.Equal(t, "model: "+string(FlagWarmupAtLimit), fl.Withheld)
	fc := CompareFits(model, fitWith(-40, 40, 80, FlagStep), CompareOptions{})
	assert.Equal(t, "control: "+string(FlagStep), fc.Withheld, fc.Reason)
	assert.Empty(t, aa.Withheld, "inconclusive by its interval, not withheld")
	// No interval: !Valid.
	assert.False(t, CompareFits(Fit{}, control, CompareOptions{}).Estimate.Valid)
}
func TestInteraction(t *testing.T) {
	e := func(v, se, df float64) Estimate {
		return Estimate{Value: v, SE: se, DF: df, Low: v - 2*se, High: v + 2*se, Valid: true}
	}
	got := Interaction(e(100, 3, 50), e(60, 4, 50), e(50, 3, 50), e(20, 4, 50), 0.95)
	require.True(t, got.Valid)
	assert.InDelta(t, 10.0, got.Value, 1e-12)
	assert.InDelta(t, math.Sqrt(9+16+9+16), got.SE, 1e-12)
	assert.InDelta(t, 50.0*50*50/(2*81+2*256)*1, got.DF, 1e-9) // (Σv)²/Σ(v²/df)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: got.DF}.Quantile(0.975)
	assert.InDelta(t, 10-tq*got.SE, got.Low, 1e-9)
	assert.False(t, Interaction(e(1, 1, 1), Estimate{}, e(1, 1, 1), e(1, 1, 1), 0.95).Valid)
}

// pairedSeries is a difference series over n lifecycles: slope per
// lifecycle plus AR(1) noise (φ 0.75, sd per step) plus a random walk (step
// sd rw), one sample per lifecycle.
func pairedSeries(r *rand.Rand, n int, slope, sd, rw float64) Input {
	in := Input{Y: make([]float64, n), Lifecycles: make([]float64, n)}
	var a, w float64
	for i := range n {
		a = 0.75*a + sd*r.NormFloat64()
		w += rw * r.NormFloat64()
		in.Lifecycles[i] = float64(i)
		in.Y[i] = slope*float64(i) + a + w
	}
	return in
}
func TestComparePaired(t *testing.T) {
	montecarlo.SkipInShort(t)
	r := rand.New(rand.NewPCG(11, 3))
	o := Options{Interval: IntervalRobust}
	var leaks, aaFalse, covered int
	var lastSE float64
	const reps = 40
	for range reps {
		d, f, err := ComparePaired(pairedSeries(r, 1000, 256, 10e3, 500), o, CompareOptions{})
		require.NoError(t, err)
		require.True(t, d.Estimate.Valid, d.Reason)
		assert.Equal(t, 1000, f.Samples)
		assert.InDelta(t, float64(DefaultBatches-1), d.Estimate.DF, 1e-12)
		lastSE = d.Estimate.SE
		if d.Verdict == VerdictLeak {
			leaks++
			assert.Contains(t, d.Reason, "lies above 0 B/lifecycle")
			assert.Contains(t, d.Reason, "(99%)", "called at PairedConfidence")
		}
		// The verdict's interval is at PairedConfidence; coverage is that of
		// the 95% interval, the goal's.
		lo99, hi99, _ := d.Estimate.TInterval(PairedConfidence)
		assert.InDelta(t, lo99, d.Estimate.Low, 1e-6*d.Estimate.SE)
		assert.InDelta(t, hi99, d.Estimate.High, 1e-6*d.Estimate.SE)
		if lo, hi, ok := d.Estimate.TInterval(0.95); ok && lo <= 256 && 256 <= hi {
			covered++
		}
		aa, _, err := ComparePaired(pairedSeries(r, 1000, 0, 10e3, 500), o, CompareOptions{})
		require.NoError(t, err)
		if aa.Verdict == VerdictLeak {
			aaFalse++
		}
	}
	t.Logf("leak %d/%d, covered %d/%d, A/A false %d/%d, last SE %.0f", leaks, reps, covered, reps, aaFalse, reps, lastSE)
	assert.GreaterOrEqual(t, leaks, reps-2)
	assert.GreaterOrEqual(t, covered, reps-4)
	assert.LessOrEqual(t, aaFalse, 2)

	// A dominating level shift in the difference withholds the verdict.
	step := pairedSeries(r, 1000, 256, 3e3, 0)
	for i := 600; i < 1000; i++ {
		step.Y[i] += 50 << 20
	}
	st, _, err := ComparePaired(step, o, CompareOptions{})
	require.NoError(t, err)
	assert.Equal(t, VerdictInconclusive, st.Verdict, st.Reason)
	assert.Contains(t, st.Reason, "paired difference: "+string(FlagStep))
	assert.Equal(t, "paired difference: "+string(FlagStep), st.Withheld)
	// A between-run term widens it (√2·τ in quadrature).
	in := pairedSeries(r, 1000, 256, 10e3, 500)
	d0, _, _ := ComparePaired(in, o, CompareOptions{})
	w, _, _ := ComparePaired(in, o, CompareOptions{BetweenRunSD: 200})
	assert.InDelta(t, math.Hypot(d0.Estimate.SE, math.Sqrt2*200), w.Estimate.SE, 1e-9)
	// Too short for batch means: no interval, no call.
	short, _, err := ComparePaired(pairedSeries(r, 20, 256, 3e3, 0), o, CompareOptions{})
	require.NoError(t, err)
	assert.False(t, short.Estimate.Valid)
	assert.Equal(t, VerdictInconclusive, short.Verdict)
}
func TestBatchMeansSlope(t *testing.T) {
	// A straight line: the slope exactly, no spread.
	line := Input{Y: make([]float64, 80), Lifecycles: make([]float64, 80)}
	for i := range line.Y {
		line.Lifecycles[i] = float64(2 * i)
		line.Y[i] = 5 + 3*line.Lifecycles[i]
	}
	e := BatchMeansSlope(line, 8, 0.95)
	require.True(t, e.Valid)
	assert.InDelta(t, 3, e.Value, 1e-9)
	assert.InDelta(t, 0, e.SE, 1e-9)
	assert.Equal(t, 7.0, e.DF)
	assert.False(t, BatchMeansSlope(Input{Y: line.Y[:20], Lifecycles: line.Lifecycles[:20]}, 8, 0.95).Valid, "fewer than 3 samples a batch")
	// Coverage on a random walk plus AR(1) noise, where an interval that
	// assumes stationary errors undercovers.
	r := rand.New(rand.NewPCG(11, 4))
	covered := 0
	const reps = 300
	for range reps {
		e := BatchMeansSlope(pairedSeries(r, 800, 100, 20e3, 5e3), 8, 0.95)
		if e.Low <= 100 && 100 <= e.High {
			covered++
		}
	}
	t.Logf("batch means covered %d/%d", covered, reps)
	assert.InDelta(t, 0.95, float64(covered)/reps, 0.04)
}

// TestTInterval checks Estimate.TInterval against tabulated Student-t
// quantiles (t₇ at 0.975 = 2.364624, at 0.995 = 3.499483; the normal's
// 1.959964 for df → ∞) and that an estimate without an interval has none.
func TestTInterval(t *testing.T) {
	for _, tc := range []struct {
		name       string
		e          Estimate
		confidence float64
		half       float64
		ok         bool
	}{
		{"t7 95%", Estimate{Value: 100, SE: 10, DF: 7, Valid: true}, 0.95, 23.64624, true},
		{"t7 99%", Estimate{Value: 100, SE: 10, DF: 7, Valid: true}, 0.99, 34.99483, true},
		{"normal 95%", Estimate{Value: -5, SE: 1, DF: 1e9, Valid: true}, 0.95, 1.959964, true},
		{"not valid", Estimate{Value: 1, SE: 1, DF: 7}, 0.95, 0, false},
		{"no df", Estimate{Value: 1, SE: 1, Valid: true}, 0.95, 0, false},
		{"level 1", Estimate{Value: 1, SE: 1, DF: 7, Valid: true}, 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, ok := tc.e.TInterval(tc.confidence)
			require.Equal(t, tc.ok, ok)
			if ok {
				assert.InDelta(t, tc.e.Value-tc.half, lo, 1e-5)
				assert.InDelta(t, tc.e.Value+tc.half, hi, 1e-5)
			}
		})
	}
}

// TestIntervalVerdict: the verdict of a difference's interval against the
// margin alone (as CompareFits decides): above the margin a leak, inside ±
// the margin no difference, else (straddling, below −margin, no margin, no
// interval) inconclusive.
func TestIntervalVerdict(t *testing.T) {
	e := func(lo, hi float64) Estimate { return Estimate{Value: (lo + hi) / 2, Low: lo, High: hi, Valid: true} }
	for _, c := range []struct {
		e      Estimate
		margin float64
		want   VerdictKind
	}{
		{e(2100, 3000), 2048, VerdictLeak},
		{e(-500, 500), 2048, VerdictNoLeak},
		{e(-500, 2100), 2048, VerdictInconclusive},
		{e(-3000, -2100), 2048, VerdictInconclusive},
		{e(-500, 500), 0, VerdictInconclusive},
		{Estimate{Value: 0}, 2048, VerdictInconclusive},
	} {
		assert.Equal(t, c.want, IntervalVerdict(c.e, c.margin), "%+v against %v", c.e, c.margin)
	}
}
