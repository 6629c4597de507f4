package simulate

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/stats"
)

// legacyPair fits a native-heap and an RSS series of n samples, one per
// lifecycle over a 1 MB level, with AR(1) noise (φ = 0.7; innovations
// 20 KB native, 40 KB RSS).
func legacyPair(t *testing.T, n int, seed uint64, native, rss func(int) float64) (stats.Fit, stats.Fit) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	series := func(shape func(int) float64, noise []float64) stats.Input {
		in := stats.Input{Y: make([]float64, n), Lifecycles: make([]float64, n), Records: make([]float64, n)}
		for i := range n {
			in.Lifecycles[i], in.Records[i] = float64(i+1), 120*float64(i+1)
			in.Y[i] = 1<<20 + noise[i]
			if shape != nil {
				in.Y[i] += shape(i)
			}
		}
		return in
	}
	nf, err := stats.FitSignal(series(native, AR1(0.7, 20000)(r, n)), stats.DefaultOptions())
	require.NoError(t, err)
	rf, err := stats.FitSignal(series(rss, AR1(0.7, 40000)(r, n)), stats.DefaultOptions())
	require.NoError(t, err)
	return nf, rf
}

func lineOf(slope float64) func(int) float64 {
	return func(i int) float64 { return slope * float64(i) }
}

// legacyFloors are the floors the hand-made cases sit around (lower than
// the defaults, to keep the cases small).
var legacyFloors = LegacyOptions{NativeFloor: 1024, RSSFloor: 4096}

func TestLegacyDecide(t *testing.T) {
	yes, no := true, false
	knee := func(slope float64, k int) func(int) float64 {
		return func(i int) float64 { return slope * math.Min(float64(i), float64(k)) }
	}
	peak := func(h float64, c, w int) func(int) float64 {
		return func(i int) float64 { return h * math.Exp(-math.Pow(float64(i-c)/float64(w), 2)) }
	}
	step := func(h float64, k int) func(int) float64 {
		return func(i int) float64 { return h * float64(min(1, max(0, i-k+1))) }
	}
	tests := []struct {
		name        string
		n           int
		native, rss func(int) float64
		want        *bool
		reason      string // substring of Reason
	}{
		{"leak", 500, lineOf(11400), lineOf(16000), &yes, "leak: native heap +11."}, // positive control
		{"flat", 500, nil, nil, &no, "no leak"},                                     // negative control
		{"fixed model warm-up", 1500, nil, knee(6000, 750), &no, "no leak"},
		{"transient peak", 500, peak(2e6, 40, 15), peak(3e6, 40, 15), &no, "no leak"},
		{"step", 500, step(2e6, 250), step(2e6, 250), nil, "level shift"},
		{"native leaks, RSS flat", 500, lineOf(11400), nil, nil, "native heap and RSS disagree"},
		{"native flat, RSS rises", 500, nil, lineOf(16000), nil, "native heap and RSS disagree"},
		{"native near floor", 300, lineOf(1024), lineOf(16000), nil, "straddles its floor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nf, rf := legacyPair(t, tt.n, 42, tt.native, tt.rss)
			v := LegacyDecide(nf, rf, legacyFloors)
			if tt.want == nil {
				assert.Nil(t, v.Leak, v.Reason)
			} else if assert.NotNil(t, v.Leak, v.Reason) {
				assert.Equal(t, *tt.want, *v.Leak, v.Reason)
			}
			assert.Contains(t, v.Reason, tt.reason)
		})
	}
}

func TestLegacyDecideTooFew(t *testing.T) {
	nf, rf := legacyPair(t, 8, 1, lineOf(11400), lineOf(16000))
	v := LegacyDecide(nf, rf, DefaultLegacyOptions())
	assert.Nil(t, v.Leak)
	assert.Contains(t, v.Reason, "cannot decide")
	has := func(sub string) bool {
		for _, w := range v.Warnings {
			if strings.Contains(w, sub) {
				return true
			}
		}
		return false
	}
	assert.True(t, has("need at least 20 samples"), "%q", v.Warnings)
	assert.True(t, has("native heap: "), "fit warnings are passed on with the signal's name")
	assert.Nil(t, LegacyDecide(stats.Fit{}, stats.Fit{}, LegacyOptions{}).Leak, "the zero Fit is not evidence of anything")
}

// TestLegacyDecideZeroOptionsAreTheDefaults: zero LegacyOptions decide with
// stats.DefaultNativeFloor and stats.DefaultRSSFloor.
func TestLegacyDecideZeroOptionsAreTheDefaults(t *testing.T) {
	est := stats.Estimate{Value: 1500, Low: 1000, High: 2000, SE: 250, DF: 100, Valid: true}
	f := stats.Fit{PerLifecycle: est, MannKendallP: 0.5, Samples: 100, SamplesUsed: 100, Confidence: 0.95}
	zero, def := LegacyDecide(f, f, LegacyOptions{}), LegacyDecide(f, f, DefaultLegacyOptions())
	assert.Equal(t, def, zero)
	require.NotNil(t, zero.Leak, zero.Reason)
	assert.False(t, *zero.Leak, "1.46 KiB/lifecycle [0.98, 1.95] is below the default 2 KiB floor: %s", zero.Reason)
	assert.Contains(t, zero.Reason, "2.00 KiB/lifecycle")
}

// TestLegacyDecideRule exercises the rule on hand-made estimates.
func TestLegacyDecideRule(t *testing.T) {
	est := func(v, lo, hi float64) stats.Estimate {
		return stats.Estimate{Value: v, Low: lo, High: hi, SE: (hi - lo) / 4, DF: 100, Valid: true}
	}
	fit := func(e stats.Estimate, mkP float64) stats.Fit {
		return stats.Fit{PerLifecycle: e, MannKendallP: mkP, Samples: 100, SamplesUsed: 100, Confidence: 0.95}
	}
	yes, no := true, false
	tests := []struct {
		name        string
		native, rss stats.Fit
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
		{"invalid native", stats.Fit{}, fit(est(5000, 4000, 6000), 0), nil, "cannot decide"},
		{"step", stats.Fit{PerLifecycle: est(5000, 4000, 6000), Step: &stats.StepInfo{Index: 50, Size: 1 << 21}, Samples: 100}, fit(est(5000, 4000, 6000), 0), nil,
			"native heap shifts by +2.00 MiB at sample 50 of 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := LegacyDecide(tt.native, tt.rss, legacyFloors)
			if tt.want == nil {
				assert.Nil(t, v.Leak, v.Reason)
			} else if assert.NotNil(t, v.Leak, v.Reason) {
				assert.Equal(t, *tt.want, *v.Leak, v.Reason)
			}
			assert.Contains(t, v.Reason, tt.reason)
		})
	}
	v := LegacyDecide(fit(est(5000, 4000, 6000), 0), fit(est(5000, 4000, 6000), 0), LegacyOptions{NativeFloor: 8192, RSSFloor: 8192})
	require.NotNil(t, v.Leak)
	assert.False(t, *v.Leak, "floors are configurable: %s", v.Reason)
}
