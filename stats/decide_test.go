package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/montecarlo"
)

// fitWith returns a Fit whose per-lifecycle 95% interval is [lo, hi] with
// df degrees of freedom, over span lifecycles.
func fitWith(lo, hi, df float64, flags ...Flag) Fit {
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	v := (lo + hi) / 2
	se := (hi - lo) / 2 / tq
	return Fit{PerLifecycle: Estimate{Value: v, Low: lo, High: hi, SE: se, DF: df, Valid: true},
		Samples: 500, SamplesUsed: 450, LifecyclesUsed: 900, Confidence: 0.95, Flags: flags}
}

// withHalves sets f's per-half slopes (as FitSignal does with
// FlagSlopeNotConstant or FlagWarmupAtLimit) from the intervals of first and second.
func withHalves(f, first, second Fit) Fit {
	f.Halves = []Estimate{first.PerLifecycle, second.PerLifecycle}
	return f
}

// withRates sets f's curvature-test rates (as FitSignal does whenever the
// test runs) at the first and last used sample.
func withRates(f Fit, first, last float64) Fit {
	f.CurvatureRates = []float64{first, last}
	return f
}

func TestDecideSignals(t *testing.T) {
	tests := []struct {
		name        string
		native, rss Fit
		want        VerdictKind
		reason      string // substring of Reason
		settle      string // substring of Settle
	}{
		// Positive control: the leaky model.
		{"leak", fitWith(10000, 12000, 200), fitWith(14000, 18000, 200), VerdictLeak, "lies above its floor", ""},
		// Negative control: both below their floors.
		{"no leak", fitWith(-300, 500, 200), fitWith(-2000, 3000, 200), VerdictNoLeak, "below its floor 12.0 KiB", ""},
		// The example (fixed model, seed 2): RSS +67.1 KiB [35.2, 99.0]
		// lies wholly above its floor: never "no leak".
		{"RSS above its floor", fitWith(-300, 500, 200), fitWith(35.2*1024, 99*1024, 200), VerdictInconclusive, "lies above its floor 12.0 KiB", "levels off"},
		// RSS rising only as a point estimate: not a leak.
		// RSS wholly below the native floor contradicts a leak.
		{"RSS below the native floor", fitWith(10000, 12000, 200), fitWith(-3000, 1500, 200), VerdictInconclusive, "does not carry the native heap's growth", "more lifecycles"},
		// RSS not significant on its own but consistent with the native
		// growth (a wide random-walk interval): the native heap decides.
		{"RSS consistent, not significant", fitWith(10000, 12000, 200), fitWith(-1000, 30000, 200), VerdictLeak, "is consistent with it", ""},
		// An interval straddling the floor: inconclusive, with how long to run.
		{"straddles", fitWith(1500, 2600, 200), fitWith(-2000, 3000, 200), VerdictInconclusive, "includes its floor", "more lifecycles"},
		// RSS straddling its floor while native is below: not "no leak".
		{"RSS straddles", fitWith(-300, 500, 200), fitWith(8000, 16000, 200), VerdictInconclusive, "includes its floor 12.0 KiB", "more lifecycles"},
		// Warnings that undermine the fit make a clear-looking verdict inconclusive.
		{"warm-up at limit", fitWith(10000, 12000, 200, FlagWarmupAtLimit), fitWith(14000, 18000, 200), VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		{"slope not constant", fitWith(-300, 500, 200), fitWith(-2000, 3000, 200, FlagSlopeNotConstant), VerdictInconclusive, "slope is not constant", "levels off"},
		{"random walk unmodelled", fitWith(-300, 500, 200, FlagRandomWalk), fitWith(-2000, 3000, 200), VerdictInconclusive, "random walk", "--reanalyze"},
		{"too few", fitWith(-300, 500, 200, FlagTooFew), fitWith(-2000, 3000, 200), VerdictInconclusive, "too few samples", "more lifecycles"},
		{"level shift", fitWith(-300, 500, 200, FlagStep), fitWith(-2000, 3000, 200), VerdictInconclusive, "level shift", "repeat"},
		// A modelled random walk is not a reason to withhold a verdict.
		{"random walk modelled", fitWith(-300, 500, 200), fitWith(-2000, 3000, 200, FlagRandomWalkModelled), VerdictNoLeak, "no leak", ""},
		{"invalid", Fit{Samples: 10, SamplesUsed: 10}, fitWith(-2000, 3000, 200), VerdictInconclusive, "no per-lifecycle interval", "run longer"},
		// A leak whose RSS rate changes but which carries the native growth
		// in both halves (the default scenario's growing restores): the leak
		// call needs RSS not to contradict the native heap, not RSS's rate.
		{"RSS rate changes, consistent in both halves", fitWith(10000, 12000, 200),
			withHalves(fitWith(20000, 30000, 200, FlagSlopeNotConstant), fitWith(5000, 15000, 100), fitWith(30000, 50000, 100)),
			VerdictLeak, "reaches that floor in both halves", ""},
		// Negative controls: one half wholly below the native floor, or
		// native itself undermined, or native below its floor, keep it
		// inconclusive.
		{"RSS rate changes, one half below the native floor", fitWith(10000, 12000, 200),
			withHalves(fitWith(20000, 30000, 200, FlagSlopeNotConstant), fitWith(-5000, 1500, 100), fitWith(30000, 50000, 100)),
			VerdictInconclusive, "slope is not constant", "levels off"},
		{"RSS rate changes, native flagged", fitWith(10000, 12000, 200, FlagWarmupAtLimit),
			withHalves(fitWith(20000, 30000, 200, FlagSlopeNotConstant), fitWith(5000, 15000, 100), fitWith(30000, 50000, 100)),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		{"RSS rate changes, native below floor", fitWith(-300, 500, 200),
			withHalves(fitWith(20000, 30000, 200, FlagSlopeNotConstant), fitWith(5000, 15000, 100), fitWith(30000, 50000, 100)),
			VerdictInconclusive, "slope is not constant", "levels off"},
		// RSS's warm-up cut at its limit undermines its rate, not its
		// direction (the calibration run's synthetic 64 KiB leak on a CI
		// machine): with native clean and above its floor and RSS rising in
		// both halves of its used samples, it is a leak.
		{"RSS warm-up at limit, rises in both halves", fitWith(10000, 12000, 200),
			withHalves(fitWith(20000, 30000, 200, FlagWarmupAtLimit), fitWith(5000, 15000, 100), fitWith(30000, 50000, 100)),
			VerdictLeak, "with its warm-up cut at its limit", ""},
		{"RSS warm-up at limit and rate changes, rises in both halves", fitWith(10000, 12000, 200),
			withHalves(fitWith(20000, 30000, 200, FlagWarmupAtLimit, FlagSlopeNotConstant), fitWith(5000, 15000, 100), fitWith(30000, 50000, 100)),
			VerdictLeak, "with its warm-up cut at its limit and not at a constant rate", ""},
		// Negative controls: a half wholly below the native floor, native
		// below its floor, or another RSS flag keeps it inconclusive.
		{"RSS warm-up at limit, one half flat", fitWith(10000, 12000, 200),
			withHalves(fitWith(20000, 30000, 200, FlagWarmupAtLimit), fitWith(5000, 15000, 100), fitWith(-3000, 1500, 100)),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		{"RSS warm-up at limit, native below floor", fitWith(-300, 500, 200),
			withHalves(fitWith(20000, 30000, 200, FlagWarmupAtLimit), fitWith(5000, 15000, 100), fitWith(30000, 50000, 100)),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		{"RSS warm-up at limit and a level shift", fitWith(10000, 12000, 200),
			withHalves(fitWith(20000, 30000, 200, FlagWarmupAtLimit, FlagStep), fitWith(5000, 15000, 100), fitWith(30000, 50000, 100)),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		// RSS's warm-up cut at its limit, but RSS below its floor over its
		// used samples and their later half, the native heap clean and
		// below its floor (the fixed model at kafka-20616's seed 1): no leak.
		{"RSS warm-up at limit, below its floor", fitWith(-309, 1600, 200),
			withHalves(fitWith(1900, 6300, 200, FlagWarmupAtLimit), fitWith(2900, 8200, 100), fitWith(-2000, 7400, 100)),
			VerdictNoLeak, "though with its warm-up cut at its limit, lies below its floor 12.0 KiB/lifecycle over its used samples and their later half", ""},
		{"RSS warm-up at limit and rate changes, below its floor", fitWith(-309, 1600, 200),
			withHalves(fitWith(1900, 6300, 200, FlagWarmupAtLimit, FlagSlopeNotConstant), fitWith(6000, 9000, 100), fitWith(-2000, 3000, 100)),
			VerdictNoLeak, "with its warm-up cut at its limit and not at a constant rate", ""},
		// Negative controls: the later half reaching the floor, RSS over its
		// whole used samples reaching it, another RSS flag, the native heap
		// flagged or reaching its floor, or no halves keep it inconclusive.
		{"RSS warm-up at limit, later half reaches its floor", fitWith(-309, 1600, 200),
			withHalves(fitWith(1900, 11000, 200, FlagWarmupAtLimit), fitWith(-2000, 3000, 100), fitWith(4000, 13000, 100)),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		{"RSS warm-up at limit, reaches its floor", fitWith(-309, 1600, 200),
			withHalves(fitWith(8000, 16000, 200, FlagWarmupAtLimit), fitWith(2900, 8200, 100), fitWith(-2000, 7400, 100)),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		{"RSS warm-up at limit and a level shift, below its floor", fitWith(-309, 1600, 200),
			withHalves(fitWith(1900, 6300, 200, FlagWarmupAtLimit, FlagStep), fitWith(2900, 8200, 100), fitWith(-2000, 7400, 100)),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		{"RSS warm-up at limit, native flagged", fitWith(-309, 1600, 200, FlagRandomWalk),
			withHalves(fitWith(1900, 6300, 200, FlagWarmupAtLimit), fitWith(2900, 8200, 100), fitWith(-2000, 7400, 100)),
			VerdictInconclusive, "random walk", "--reanalyze"},
		{"RSS warm-up at limit, native reaches its floor", fitWith(16, 2100, 200),
			withHalves(fitWith(1900, 6300, 200, FlagWarmupAtLimit), fitWith(2900, 8200, 100), fitWith(-2000, 7400, 100)),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
		{"RSS warm-up at limit, no halves", fitWith(-309, 1600, 200), fitWith(1900, 6300, 200, FlagWarmupAtLimit),
			VerdictInconclusive, "warm-up cut reached its limit", "twice as long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DecideSignals(tt.native, tt.rss, DecideOptions{})
			assert.Equal(t, tt.want, d.Verdict, d.Reason)
			assert.Equal(t, tt.want.Leak() == nil, d.Verdict == VerdictInconclusive)
			assert.Contains(t, d.Reason, tt.reason)
			if tt.settle == "" {
				assert.Empty(t, d.Settle)
			} else {
				assert.Contains(t, d.Settle, tt.settle)
			}
			t.Log(d.Reason, "|", d.Settle)
		})
	}
}

// TestDecideSignalsConsistent: over a grid of intervals, the Reason never
// says "above"/"below" a floor unless the quoted interval is.
func TestDecideSignalsConsistent(t *testing.T) {
	vals := []float64{-5000, -500, 0, 500, 1900, 2200, 4000, 8000, 11900, 12500, 16000, 40000}
	for _, nlo := range vals {
		for _, nw := range []float64{100, 1000, 5000} {
			for _, rlo := range vals {
				for _, rw := range []float64{100, 1000, 30000} {
					nf, rf := fitWith(nlo, nlo+nw, 100), fitWith(rlo, rlo+rw, 100)
					d := DecideSignals(nf, rf, DecideOptions{})
					switch d.Verdict {
					case VerdictLeak:
						require.Greater(t, d.Native.Low, float64(DefaultNativeFloor), d.Reason)
						require.GreaterOrEqual(t, d.RSS.High, float64(DefaultNativeFloor), d.Reason)
					case VerdictNoLeak:
						require.Less(t, d.Native.High, float64(DefaultNativeFloor), d.Reason)
						require.Less(t, d.RSS.High, float64(DefaultRSSFloor), d.Reason)
					default:
						require.NotEmpty(t, d.Settle, d.Reason)
					}
					if strings.Contains(d.Reason, "native heap") && strings.Contains(d.Reason, "lies above its floor 2.00 KiB") {
						require.Greater(t, d.Native.Low, float64(DefaultNativeFloor), d.Reason)
					}
					if strings.Contains(d.Reason, "lies below its floor 2.00 KiB") {
						require.Less(t, d.Native.High, float64(DefaultNativeFloor), d.Reason)
					}
				}
			}
		}
	}
}

func TestCompareFits(t *testing.T) {
	model, control := fitWith(200, 312, 50), fitWith(-40, 40, 80)
	d := CompareFits(model, control, CompareOptions{})
	assert.Equal(t, VerdictLeak, d.Verdict, d.Reason)
	assert.Greater(t, d.Estimate.Low, 0.0)
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
	// A blocking flag on either side: inconclusive.
	fl := CompareFits(fitWith(200, 312, 50, FlagWarmupAtLimit), control, CompareOptions{})
	assert.Equal(t, VerdictInconclusive, fl.Verdict, fl.Reason)
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

func TestStopRule(t *testing.T) {
	r := StopRule{PlannedLifecycles: 1000}
	assert.InDelta(t, 0.05, r.Spend(1), 1e-12)
	assert.InDelta(t, 0.05, r.Spend(2), 1e-12)
	assert.Equal(t, 0.0, r.Spend(0))
	prev := 0.0
	for _, tt := range []float64{0.05, 0.1, 0.2, 0.4, 0.8, 1} {
		s := r.Spend(tt)
		assert.Greater(t, s, prev)
		prev = s
	}
	assert.Less(t, r.Spend(0.1), 1e-6, "O'Brien–Fleming spends almost nothing early")

	// No look while a fit is flagged or too short: nothing spent.
	var st StopState
	d, stop := r.Look(&st, LookData{Lifecycles: 100, Native: fitWith(10000, 12000, 200, FlagWarmupAtLimit), RSS: fitWith(14000, 18000, 200)}, DecideOptions{})
	assert.False(t, stop)
	assert.Equal(t, VerdictInconclusive, d.Verdict)
	assert.Contains(t, d.Reason, "no look")
	assert.Equal(t, 0.0, st.Spent)
	short := fitWith(10000, 12000, 200)
	short.SamplesUsed = 30
	_, stop = r.Look(&st, LookData{Lifecycles: 100, Native: short, RSS: fitWith(14000, 18000, 200)}, DecideOptions{})
	assert.False(t, stop)
	assert.Equal(t, 0, st.Looks)

	// A clear leak at half the horizon stops, with the look's wider level.
	d, stop = r.Look(&st, LookData{Lifecycles: 500, Native: fitWith(10000, 12000, 200), RSS: fitWith(14000, 18000, 200)}, DecideOptions{})
	assert.True(t, stop)
	assert.Equal(t, VerdictLeak, d.Verdict, d.Reason)
	assert.Greater(t, d.Confidence, 0.99)
	assert.Contains(t, d.Reason, "biased away from the floor")
	assert.True(t, d.EarlyStop)
	assert.Equal(t, 1, d.Look)
	assert.InDelta(t, r.Spend(0.5), st.Spent, 1e-12)

	// At the horizon an inconclusive verdict stops too.
	st = StopState{}
	d, stop = r.Look(&st, LookData{Lifecycles: 1000, Native: fitWith(1500, 2600, 200), RSS: fitWith(-2000, 3000, 200)}, DecideOptions{})
	assert.True(t, stop)
	assert.Equal(t, VerdictInconclusive, d.Verdict)
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

// withBound sets f's FlagSlows and its exponential approach.
func withBound(f Fit, b *Bound) Fit {
	f.Flags = append(f.Flags, FlagSlows)
	f.Bound = b
	return f
}

// TestDecideSignalsBounded: growth that slows is never a leak. Reached
// within the run: "bounded" with its level and when it is reached; still
// rising: inconclusive with how long a run would show it level off; RSS
// slowing above its floor while the native heap is flat: bounded RSS. The
// same intervals without FlagSlows are a leak (positive control), and a
// slowing native heap below its floor is still no leak.
func TestDecideSignalsBounded(t *testing.T) {
	reached := &Bound{Level: 28 << 20, Rise: 20 << 20, Tau: 200, ReachedAt: 600, Reached: true, Fitted: true}
	rising := &Bound{Level: 40 << 20, Rise: 32 << 20, Tau: 900, ReachedAt: 2700, Fitted: true}
	leakN, leakR := fitWith(10000, 12000, 200), fitWith(14000, 18000, 200)
	require.Equal(t, VerdictLeak, DecideSignals(leakN, leakR, DecideOptions{}).Verdict)
	for _, tt := range []struct {
		name           string
		native, rss    Fit
		want           VerdictKind
		reason, settle string
	}{
		{"native reached", withBound(leakN, reached), leakR, VerdictInconclusive, "bounded, not a leak: native heap grows but levels off: an exponential approach puts its level at 28.0 MiB (a rise of 20.0 MiB), 95% of it reached by lifecycle ~600", "confirm"},
		{"native still rising", withBound(leakN, rising), leakR, VerdictInconclusive, "its growth slows, so it may be bounded", "more lifecycles to see whether native heap levels off"},
		{"native, no level", withBound(leakN, nil), leakR, VerdictInconclusive, "cannot be told from this run", "twice as long"},
		{"RSS slows", leakN, withBound(leakR, rising), VerdictInconclusive, "RSS grows, but its growth slows", "RSS levels off"},
		// RSS slows while the native heap holds its rate (the quadratic's
		// last rate ≥ 0.8 of its first, not flagged): the allocator's
		// warm-up, a leak. Negative control: the native heap's rate falls
		// by half without reaching significance: still inconclusive.
		{"RSS slows, native holds its rate", withRates(leakN, 11000, 10800), withBound(leakR, rising), VerdictLeak, "lies above its floor", ""},
		{"RSS slows, native rate falls", withRates(leakN, 14000, 7000), withBound(leakR, rising), VerdictInconclusive, "RSS grows, but its growth slows", "RSS levels off"},
		// Negative control: the native heap holds its rate, but RSS, slowing,
		// does not rise significantly (restore-peak's fixed model: transient
		// restore buffers held longer as the run goes on): not the
		// allocator's warm-up under a growing heap, still inconclusive.
		{"RSS slows to flat, native holds its rate", withRates(leakN, 11000, 10800), withBound(fitWith(-140e3, 80e3, 200), rising), VerdictInconclusive, "RSS grows, but its growth slows", "RSS levels off"},
		{"RSS above its floor, reached", fitWith(-300, 500, 200), withBound(fitWith(35e3, 99e3, 200), reached), VerdictInconclusive, "bounded, not a leak: RSS", "confirm"},
		{"native slows below its floor", withBound(fitWith(-300, 500, 200), reached), fitWith(-2000, 3000, 200), VerdictNoLeak, "no leak", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := DecideSignals(tt.native, tt.rss, DecideOptions{})
			assert.Equal(t, tt.want, d.Verdict, d.Reason)
			assert.Contains(t, d.Reason, tt.reason)
			assert.Contains(t, d.Settle, tt.settle)
		})
	}
}

// TestDecideSlowPlateauNotALeak: the hardest cell of issue 29's plateau
// family, P = 5 MiB levelling off with τ the whole run (150 samples, 2
// lifecycles a sample, native heap AR(1), RSS a random walk, as
// stats/simulate's PlateauSuite), still rises 6.5 KiB/lifecycle at the end,
// three times the native floor, and the warm-up cut takes about a third of
// the run. The curvature test of FlagSlows takes the quadratic's standard
// error under the likeliest error model (curvatureRegress): with the
// largest over the likelihood region, as the slope's interval takes it,
// this cell was called a leak in 25 of 100 seeds here (0.19 of 400 runs in
// statscheck), with the likeliest model's in 10 to 12 (0.07-0.08 of
// 200-400 runs), and since the whole-run test after a long warm-up cut
// (Options.LongWarmupShare) in none; the bound is the 5%. The
// native heap is fitted as the tool fits it (IntervalCalibrated, whose
// diagnostic tests run at RegressRobust's, diagnosticInterval, and
// LongWarmupShare: analysis.OptionsFor). Negative control: a straight
// leak at the leaky model's rate under the same noise is still called a
// leak.
func TestDecideSlowPlateauNotALeak(t *testing.T) {
	if testing.Short() {
		t.Skip("200 seeded fits of 150 samples")
	}
	const n, seeds = 150, 100
	nat := Options{Interval: IntervalCalibrated, LongWarmupShare: LongWarmupShare}
	rss := Options{Interval: IntervalRobustBatch}
	leaks := func(shape func(i int) float64, slope float64) (calls int) {
		for s := range seeds {
			ni, ri := simSignals(uint64(500+s), n, func(i int, L float64) float64 { return shape(i) + slope*L })
			nf, err := FitSignal(ni, nat)
			require.NoError(t, err)
			rf, err := FitSignal(ri, rss)
			require.NoError(t, err)
			if DecideSignals(nf, rf, DecideOptions{}).Verdict == VerdictLeak {
				calls++
			}
		}
		return calls
	}
	plateau := func(i int) float64 { return 5 << 20 * (1 - math.Exp(-float64(i)/(n-1))) }
	got := leaks(plateau, 0)
	t.Logf("plateau 5 MiB, τ = the run, n = %d: leak in %d of %d seeds", n, got, seeds)
	assert.LessOrEqual(t, got, seeds*5/100, "bounded growth called a leak")
	flat := func(int) float64 { return 0 }
	got = leaks(flat, 11<<10)
	t.Logf("straight leak of 11 KiB/lifecycle, n = %d: leak in %d of %d seeds", n, got, seeds)
	assert.GreaterOrEqual(t, got, seeds*9/10, "straight leak not called a leak")
}

// TestHoldsItsRateOnFits: FitSignal keeps the curvature quadratic's rates
// (Fit.CurvatureRates) whether or not the growth-slows flag fires, and holdsItsRate
// reads them as DecideSignals does. Positive control: a straight 11
// KiB/lifecycle leak under the native heap's AR(1) noise holds its rate at
// every seed. Negative control: growth levelling off (20 MiB, τ a third of
// the run) does not, at any seed.
func TestHoldsItsRateOnFits(t *testing.T) {
	const n = 300
	nat := Options{Interval: IntervalCalibrated}
	fit := func(seed uint64, shape func(L float64) float64) Fit {
		r := seeded(seed)
		in := Input{Y: ar1(r, n, 0.75, 30e3), Lifecycles: make([]float64, n)}
		for i := range n {
			L := 2 * float64(i)
			in.Lifecycles[i] = L
			in.Y[i] += shape(L)
		}
		f, err := FitSignal(in, nat)
		require.NoError(t, err)
		require.Len(t, f.CurvatureRates, 2)
		return f
	}
	for s := range uint64(20) {
		straight := fit(700+s, func(L float64) float64 { return 11 << 10 * L })
		assert.True(t, holdsItsRate(straight), "straight leak, seed %d: rates %v", s, straight.CurvatureRates)
		plateau := fit(700+s, func(L float64) float64 { return 20 << 20 * (1 - math.Exp(-L/(2*n/3))) })
		assert.False(t, holdsItsRate(plateau), "plateau, seed %d: rates %v", s, plateau.CurvatureRates)
	}
}

// TestLongWarmupSlowsOverTheRun: with Options.LongWarmupShare, a native
// heap whose warm-up cut takes a quarter of the run or more is tested for
// growth that slows over all of its samples. Positive: issue 29's hard
// plateau (5 MiB, τ the whole run, 150 samples) is flagged over the whole
// run, and not called a leak, at every seed whose cut is that long.
// Negative controls: the same series without the option (the cut's flatter
// rest alone), and a straight leak of 11 KiB/lifecycle whose first third
// rises a further 1 MiB and falls back (a long cut, no bend over the run),
// which stays a leak.
func TestLongWarmupSlowsOverTheRun(t *testing.T) {
	const n, seeds = 150, 60
	nat := Options{Interval: IntervalCalibrated, LongWarmupShare: LongWarmupShare}
	off := nat
	off.LongWarmupShare = 0
	rss := Options{Interval: IntervalRobustBatch}
	// tally fits seeds series of shape (the native heap's AR(1) noise, RSS's
	// random walk) and counts, over those whose native warm-up cut is long:
	// growth-slows with and without the option, by the whole-run test alone,
	// and leak calls with and without it.
	type counts struct{ long, slowsOn, slowsOff, byRun, leakOn, leakOff int }
	tally := func(base uint64, shape func(i int, L float64) float64) (c counts) {
		for s := range seeds {
			ni, ri := simSignals(base+uint64(s), n, shape)
			on, err := FitSignal(ni, nat)
			require.NoError(t, err)
			if float64(on.WarmupSamples) < LongWarmupShare*n {
				continue
			}
			c.long++
			o, err := FitSignal(ni, off)
			require.NoError(t, err)
			rf, err := FitSignal(ri, rss)
			require.NoError(t, err)
			a, b := on.HasFlag(FlagSlows), o.HasFlag(FlagSlows)
			c.slowsOn += b2i(a)
			c.slowsOff += b2i(b)
			c.byRun += b2i(a && !b)
			c.leakOn += b2i(DecideSignals(on, rf, DecideOptions{}).Verdict == VerdictLeak)
			c.leakOff += b2i(DecideSignals(o, rf, DecideOptions{}).Verdict == VerdictLeak)
		}
		return c
	}

	p := tally(900, func(i int, _ float64) float64 { return 5 << 20 * (1 - math.Exp(-float64(i)/(n-1))) })
	t.Logf("plateau: %+v of %d seeds", p, seeds)
	require.Greater(t, p.long, seeds/3, "the plateau's warm-up cut is long at most seeds")
	assert.Equal(t, p.long, p.slowsOn, "a long cut on the plateau flags the growth over the whole run")
	assert.Less(t, p.slowsOff, p.slowsOn, "without the option the flatter rest alone flags fewer")
	assert.Zero(t, p.leakOn, "the plateau called a leak")

	l := tally(1900, func(i int, L float64) float64 {
		b := 0.0
		if i < n/3 {
			b = 1 << 20 * math.Sin(math.Pi*float64(i)/float64(n/3))
		}
		return 11<<10*L + b
	})
	t.Logf("leak with a transient: %+v of %d seeds", l, seeds)
	require.Greater(t, l.long, seeds/3, "the transient's cut is long at most seeds")
	assert.LessOrEqual(t, l.byRun, l.long/20, "a straight leak after a transient read as slowing over the whole run")
	assert.GreaterOrEqual(t, l.leakOn, l.leakOff-l.long/20, "the option costs leak calls on a straight leak after a transient")
}

// simSignals returns n samples, 2 lifecycles apart, of a native heap and an
// RSS that both follow shape(i, L), seeded by seed: the native heap with
// AR(1) noise (φ = 0.75, innovations of 30 kB), RSS with a random walk
// (steps of 20 kB), the simulation suite's noise.
func simSignals(seed uint64, n int, shape func(i int, L float64) float64) (native, rss Input) {
	r := seeded(seed)
	native = Input{Y: ar1(r, n, 0.75, 30e3), Lifecycles: make([]float64, n)}
	rss = Input{Y: make([]float64, n), Lifecycles: native.Lifecycles}
	var w float64
	for i := range n {
		L := 2 * float64(i)
		w += r.NormFloat64() * 20e3
		native.Lifecycles[i] = L
		native.Y[i] += shape(i, L)
		rss.Y[i] = shape(i, L) + w
	}
	return native, rss
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
