package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/units"
)

// fitPair fits a native-heap and an RSS series of n samples, with AR(1)
// noise (φ = 0.7; innovations 20 KB native, 40 KB RSS).
func fitPair(t *testing.T, n int, seed uint64, native, rss func(int) float64) (Fit, Fit) {
	t.Helper()
	r := seeded(seed)
	nf, err := FitSignal(synth(n, native, ar1(r, n, 0.7, 20000)), DefaultOptions())
	require.NoError(t, err)
	rf, err := FitSignal(synth(n, rss, ar1(r, n, 0.7, 40000)), DefaultOptions())
	require.NoError(t, err)
	return nf, rf
}

func TestDecide(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name        string
		n           int
		native, rss func(int) float64
		want        *bool
		reason      string // substring of Reason
	}{
		// Positive control: the leaky model (measurement.md).
		{"leak", 500, line(11400), line(16000), &yes, "leak: native heap +11."},
		// Negative control: flat with autocorrelated noise.
		{"flat", 500, nil, nil, &no, "no leak"},
		// The fixed model: native flat, RSS rises ~6 KB/cycle for the first
		// half, then flat: no false alarm.
		{"fixed model warm-up", 1500, nil, knee(6000, 750), &no, "no leak"},
		// A transient peak (e.g. a restore) over a flat tail.
		{"transient peak", 500, peak(2e6, 40, 15), peak(3e6, 40, 15), &no, "no leak"},
		// A level shift halfway is reported, not read as a slope.
		{"step", 500, step(2e6, 250), step(2e6, 250), nil, "level shift"},
		// Disagreement is stated.
		{"native leaks, RSS flat", 500, line(11400), nil, nil, "native heap and RSS disagree"},
		{"native flat, RSS rises", 500, nil, line(16000), nil, "native heap and RSS disagree"},
		// Native growth near its floor: interval straddles it.
		{"native near floor", 300, line(1024), line(16000), nil, "straddles its floor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nf, rf := fitPair(t, tt.n, 42, tt.native, tt.rss)
			v := Decide(nf, rf, ruleFloors)
			if tt.want == nil {
				assert.Nil(t, v.Leak, v.Reason)
			} else if assert.NotNil(t, v.Leak, v.Reason) {
				assert.Equal(t, *tt.want, *v.Leak, v.Reason)
			}
			assert.Contains(t, v.Reason, tt.reason)
			t.Log(v.Reason)
		})
	}
}

func TestDecideTooFew(t *testing.T) {
	nf, rf := fitPair(t, 8, 1, line(11400), line(16000))
	v := Decide(nf, rf, DefaultVerdictOptions())
	assert.Nil(t, v.Leak)
	assert.Contains(t, v.Reason, "cannot decide")
	assert.True(t, hasWarning(v.Warnings, "need at least 20 samples"), "%q", v.Warnings)
	assert.True(t, hasWarning(v.Warnings, "native heap: "), "fit warnings are passed on with the signal's name")

	// The zero Fit is not evidence of anything.
	assert.Nil(t, Decide(Fit{}, Fit{}, VerdictOptions{}).Leak)
}

// ruleFloors are the floors the hand-made cases of TestDecide and
// TestDecideRule sit around (lower than the defaults, to keep the cases small).
var ruleFloors = VerdictOptions{NativeFloor: 1024, RSSFloor: 4096}

// TestDecideZeroOptionsAreTheDefaults: a zero VerdictOptions decides with
// DefaultNativeFloor and DefaultRSSFloor.
func TestDecideZeroOptionsAreTheDefaults(t *testing.T) {
	est := Estimate{Value: 1500, Low: 1000, High: 2000, SE: 250, DF: 100, Valid: true}
	f := Fit{PerLifecycle: est, MannKendallP: 0.5, N: 100, Used: 100, Confidence: 0.95}
	zero, def := Decide(f, f, VerdictOptions{}), Decide(f, f, DefaultVerdictOptions())
	assert.Equal(t, def, zero)
	require.NotNil(t, zero.Leak, zero.Reason)
	assert.False(t, *zero.Leak, "1.46 KiB/lifecycle [0.98, 1.95] is below the default 2 KiB floor: %s", zero.Reason)
	assert.Contains(t, zero.Reason, "2.00 KiB/lifecycle")
}

// TestDecideRule exercises the rule on hand-made estimates.
func TestDecideRule(t *testing.T) {
	est := func(v, lo, hi float64) Estimate {
		return Estimate{Value: v, Low: lo, High: hi, SE: (hi - lo) / 4, DF: 100, Valid: true}
	}
	fit := func(e Estimate, mkP float64) Fit {
		return Fit{PerLifecycle: e, MannKendallP: mkP, N: 100, Used: 100, Confidence: 0.95}
	}
	yes, no := true, false
	tests := []struct {
		name        string
		native, rss Fit
		want        *bool
		reason      string
	}{
		{"both clearly up", fit(est(11469, 11162, 11776), 0), fit(est(16179, 14438, 17920), 0), &yes,
			"leak: native heap +11.2 KiB/lifecycle [10.9 KiB, 11.5 KiB] (95%) above its floor 1.00 KiB/lifecycle, and RSS +15.8 KiB/lifecycle [14.1 KiB, 17.5 KiB] (95%) agrees"},
		{"RSS low bound above 0 suffices", fit(est(5000, 4000, 6000), 0), fit(est(2000, 100, 3900), 0), &yes, "leak"},
		{"RSS value above floor suffices", fit(est(5000, 4000, 6000), 0), fit(est(5000, -100, 10100), 0.2), &yes, "leak"},
		{"both below", fit(est(10, -50, 70), 0.5), fit(est(100, -900, 1100), 0.5), &no, "is below its floor 4.00 KiB/lifecycle"},
		{"RSS includes zero", fit(est(10, -50, 70), 0.5), fit(est(3000, -100, 6100), 0.5), &no, "consistent with no growth"},
		{"RSS MK not significant", fit(est(10, -50, 70), 0.5), fit(est(4000, 1000, 7000), 0.05), &no, "no significant trend (Mann–Kendall p = 0.05)"},
		{"RSS rises, native flat", fit(est(10, -50, 70), 0.5), fit(est(6000, 5000, 7000), 1e-6), nil, "native heap and RSS disagree"},
		{"native up, RSS flat", fit(est(5000, 4000, 6000), 0), fit(est(-10, -500, 480), 0.9), nil, "native heap and RSS disagree"},
		{"native straddles", fit(est(1000, 500, 1500), 0.001), fit(est(5000, 4000, 6000), 0), nil, "straddles"},
		{"invalid native", Fit{}, fit(est(5000, 4000, 6000), 0), nil, "cannot decide"},
		{"step", Fit{PerLifecycle: est(5000, 4000, 6000), Step: &StepInfo{Index: 50, Size: 1 << 21}, N: 100}, fit(est(5000, 4000, 6000), 0), nil,
			"native heap shifts by +2.00 MiB at sample 50 of 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Decide(tt.native, tt.rss, ruleFloors)
			if tt.want == nil {
				assert.Nil(t, v.Leak, v.Reason)
			} else if assert.NotNil(t, v.Leak, v.Reason) {
				assert.Equal(t, *tt.want, *v.Leak, v.Reason)
			}
			assert.Contains(t, v.Reason, tt.reason)
		})
	}
	// Floors are configurable.
	v := Decide(fit(est(5000, 4000, 6000), 0), fit(est(5000, 4000, 6000), 0), VerdictOptions{NativeFloor: 8192, RSSFloor: 8192})
	require.NotNil(t, v.Leak)
	assert.False(t, *v.Leak, v.Reason)
}

func TestDifference(t *testing.T) {
	a := Fit{PerLifecycle: Estimate{Value: 10, SE: 3, DF: 10, Valid: true}, Confidence: 0.95}
	b := Fit{PerLifecycle: Estimate{Value: 4, SE: 4, DF: 20, Valid: true}, Confidence: 0.95}
	d := Difference(a, b)
	require.True(t, d.Valid)
	assert.Equal(t, 6.0, d.Value)
	assert.InDelta(t, 5, d.SE, 1e-12) // √(9 + 16)
	// Welch–Satterthwaite: 25² / (81/10 + 256/20) = 625/20.9.
	assert.InDelta(t, 625/20.9, d.DF, 1e-9)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 625 / 20.9}.Quantile(0.975)
	assert.InDelta(t, 6-5*tq, d.Low, 1e-9)
	assert.InDelta(t, 6+5*tq, d.High, 1e-9)
	assert.InDelta(t, 2.04, tq, 0.01)

	assert.False(t, Difference(a, Fit{}).Valid)

	// Leaky minus fixed from simulated runs: about 11.4 KB/lifecycle.
	leaky, _ := fitPair(t, 400, 3, line(11400), nil)
	fixed, _ := fitPair(t, 400, 4, nil, nil)
	d = Difference(leaky, fixed)
	require.True(t, d.Valid)
	assert.True(t, d.Low <= 11400 && 11400 <= d.High, "[%v, %v]", d.Low, d.High)
	assert.False(t, math.IsNaN(d.SE))
}

func TestFormatBytes(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{0, "0 B"},
		{512, "512 B"},
		{-3.5, "-4 B"},
		{1023, "1023 B"},
		{1024, "1.00 KiB"},
		{11469, "11.2 KiB"},
		{-11469, "-11.2 KiB"},
		{1000 * 1024, "1000 KiB"},
		{1 << 20, "1.00 MiB"},
		{3 << 30, "3.00 GiB"},
	} {
		assert.Equal(t, tt.want, units.FormatBytes(tt.v), "%v", tt.v)
	}
	assert.Equal(t, "+11.2 KiB", units.FormatSignedBytes(11469))
	assert.Equal(t, "p = 0.032", formatP(0.0321))
	assert.Equal(t, "+2.5 FDs", formatSignedQty(2.5, "FDs"))
	assert.Equal(t, "-1.00 KiB", formatSignedQty(-1024, ""))
	assert.Equal(t, "p < 0.0001", formatP(0))
}
