package stats

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFitSignalMalformed(t *testing.T) {
	ok := synth(30, line(1), nil)
	tests := map[string]struct {
		in  Input
		opt Options
	}{
		"unequal lengths":  {Input{Y: ok.Y, Lifecycles: ok.Lifecycles[:29]}, DefaultOptions()},
		"records length":   {Input{Y: ok.Y, Lifecycles: ok.Lifecycles, Records: ok.Records[:3]}, DefaultOptions()},
		"NaN":              {Input{Y: append(append([]float64{}, ok.Y[:29]...), math.NaN()), Lifecycles: ok.Lifecycles}, DefaultOptions()},
		"Inf counter":      {Input{Y: ok.Y, Lifecycles: ok.Lifecycles, FailedCloses: append(make([]float64, 29), math.Inf(1))}, DefaultOptions()},
		"empty":            {Input{}, DefaultOptions()},
		"confidence 1":     {ok, Options{Confidence: 1}},
		"warm-up share 1":  {ok, Options{MaxWarmupFraction: 1}},
		"warm-up NaN":      {ok, Options{MaxWarmupFraction: math.NaN()}},
		"negative minimum": {ok, Options{MinSamples: -1}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := FitSignal(tt.in, tt.opt)
			assert.Error(t, err)
		})
	}
}

func TestFitSignalWarmup(t *testing.T) {
	const n = 500
	tests := []struct {
		name     string
		shape    func(int) float64
		cutLo    int // WarmupSamples must be in [cutLo, cutHi]
		cutHi    int
		slope    float64 // true slope of the used samples
		slopeTol float64 // the interval must contain slope; 0: check it contains 0
	}{
		// A straight line: (near) zero cut, interval covers the slope.
		{"straight line", line(11000), 0, n / 20, 11000, 0},
		// Rises linearly for the first 30%, then flat: cut at the knee (±5%
		// of the length) and the remainder's interval includes 0.
		{"rise then flat", knee(6000, 150), 150 - n/20, 150 + n/20, 0, 0},
		// A transient peak that falls back: cut after it, flat remainder.
		{"transient peak", peak(2e6, 40, 15), 60, 100, 0, 0},
	}
	for _, tt := range tests {
		for seed := uint64(1); seed <= 3; seed++ {
			in := synth(n, tt.shape, ar1(seeded(seed), n, 0.7, 20000))
			f, err := FitSignal(in, DefaultOptions())
			require.NoError(t, err)
			assert.GreaterOrEqual(t, f.WarmupSamples, tt.cutLo, "%s seed %d: %s", tt.name, seed, f.WarmupReason)
			assert.LessOrEqual(t, f.WarmupSamples, tt.cutHi, "%s seed %d: %s", tt.name, seed, f.WarmupReason)
			assert.Equal(t, n-f.WarmupSamples, f.SamplesUsed)
			assert.NotEmpty(t, f.WarmupReason)
			pl := f.PerLifecycle
			require.True(t, pl.Valid, tt.name)
			assert.True(t, pl.Low <= tt.slope && tt.slope <= pl.High, "%s seed %d: %v not in [%v, %v]", tt.name, seed, tt.slope, pl.Low, pl.High)
			assert.Nil(t, f.Step, tt.name)
		}
	}
}

func TestFitSignalWarmupReason(t *testing.T) {
	in := synth(500, knee(6000, 150), ar1(seeded(1), 500, 0.7, 20000))
	f, err := FitSignal(in, DefaultOptions())
	require.NoError(t, err)
	assert.Contains(t, f.WarmupReason, "MSER-5 on residuals of the tail fit: cut ")
	assert.Contains(t, f.WarmupReason, " of 500 samples")

	f, err = FitSignal(synth(500, line(11000), nil), DefaultOptions())
	require.NoError(t, err)
	assert.Equal(t, 0, f.WarmupSamples)
	assert.Contains(t, f.WarmupReason, "no warm-up detected")
}

// TestFitSignalWarmupLimit: a warm-up longer than MaxWarmupFraction is cut
// at the limit, with a warning.
func TestFitSignalWarmupLimit(t *testing.T) {
	in := synth(400, knee(6000, 150), ar1(seeded(2), 400, 0.7, 20000))
	f, err := FitSignal(in, Options{MaxWarmupFraction: 0.25})
	require.NoError(t, err)
	assert.LessOrEqual(t, f.WarmupSamples, 100)
	assert.True(t, hasWarning(f.Warnings, "reached its limit of 25%"), "%q", f.Warnings)
}

func TestFitSignalStep(t *testing.T) {
	const n = 500
	in := synth(n, step(2e6, n/2), ar1(seeded(5), n, 0.7, 20000))
	f, err := FitSignal(in, DefaultOptions())
	require.NoError(t, err)
	require.NotNil(t, f.Step)
	assert.InDelta(t, n/2, f.Step.Index, float64(n)/20)
	assert.InEpsilon(t, 2e6, f.Step.Size, 0.1)
	assert.True(t, hasWarning(f.Warnings, "level shift"), "%q", f.Warnings)
	assert.Equal(t, 0, f.WarmupSamples, "a step is not a warm-up")

	// An early jump (initial allocation) is warm-up, not a step.
	f, err = FitSignal(synth(n, step(2e6, n/10), ar1(seeded(5), n, 0.7, 20000)), DefaultOptions())
	require.NoError(t, err)
	assert.Nil(t, f.Step)
	assert.InDelta(t, n/10, f.WarmupSamples, 10, f.WarmupReason)

	// No step in a line, a flat series or a knee.
	for name, shape := range map[string]func(int) float64{"line": line(11000), "flat": nil, "knee": knee(6000, 150)} {
		f, err := FitSignal(synth(n, shape, ar1(seeded(6), n, 0.7, 20000)), DefaultOptions())
		require.NoError(t, err)
		assert.Nil(t, f.Step, name)
	}
}

func TestFitSignalTooFew(t *testing.T) {
	in := synth(8, line(11000), ar1(seeded(7), 8, 0.7, 20000))
	f, err := FitSignal(in, DefaultOptions())
	require.NoError(t, err)
	assert.False(t, f.PerLifecycle.Valid)
	assert.False(t, f.PerFailedClose.Valid)
	assert.False(t, f.PerMillionRecords.Valid)
	assert.Equal(t, 8, f.Samples)
	assert.Equal(t, 8, f.SamplesUsed)
	assert.True(t, hasWarning(f.Warnings, "need at least 20 samples"), "%q", f.Warnings)
	// No NaN anywhere: the result encodes as JSON.
	_, err = json.Marshal(f)
	assert.NoError(t, err)

	for _, n := range []int{1, 2, 3} {
		f, err := FitSignal(synth(n, line(1), nil), DefaultOptions())
		require.NoError(t, err, "n=%d", n)
		assert.False(t, f.PerLifecycle.Valid)
		_, err = json.Marshal(f)
		assert.NoError(t, err, "n=%d", n)
	}
}

// TestFitSignalTwoCounters: Y = 11000·L + 50000·F + AR(1) noise, with
// failed closes at random in ~5% of lifecycles. Both slopes are recovered
// within their 95% intervals in most of 40 simulated runs (the intervals
// are honest, so a few misses are expected).
func TestFitSignalTwoCounters(t *testing.T) {
	const n, reps = 400, 40
	var hitL, hitF int
	for seed := uint64(1); seed <= reps; seed++ {
		r := seeded(seed)
		noise := ar1(r, n, 0.7, 20000)
		in := synth(n, nil, nil)
		in.FailedCloses = make([]float64, n)
		var fails float64
		for i := 0; i < n; i++ {
			if r.Float64() < 0.05 {
				fails++
			}
			in.FailedCloses[i] = fails
			in.Y[i] = 5e6 + 11000*in.Lifecycles[i] + 50000*fails + noise[i]
		}
		f, err := FitSignal(in, DefaultOptions())
		require.NoError(t, err)
		pl, pf := f.PerLifecycle, f.PerFailedClose
		require.True(t, pl.Valid)
		require.True(t, pf.Valid)
		if pl.Low <= 11000 && 11000 <= pl.High {
			hitL++
		}
		if pf.Low <= 50000 && 50000 <= pf.High {
			hitF++
		}
		assert.Less(t, pf.High-pf.Low, 50000.0, "seed %d: the failed-close interval is informative", seed)
		assert.InDelta(t, 11000, f.TheilSen, 1000, "seed %d: Theil–Sen net of failed closes", seed)
		assert.True(t, f.PerMillionRecords.Valid)
		assert.Greater(t, f.R2, 0.99)
	}
	t.Logf("coverage over %d runs: per lifecycle %d, per failed close %d", reps, hitL, hitF)
	assert.GreaterOrEqual(t, hitL, reps*85/100)
	assert.GreaterOrEqual(t, hitF, reps*85/100)
}

func TestFitSignalNoFailures(t *testing.T) {
	in := synth(200, line(11000), ar1(seeded(8), 200, 0.5, 5000))
	in.FailedCloses = make([]float64, 200)
	f, err := FitSignal(in, DefaultOptions())
	require.NoError(t, err)
	assert.True(t, f.PerLifecycle.Valid)
	assert.False(t, f.PerFailedClose.Valid)
	assert.True(t, hasWarning(f.Warnings, "FailedCloses does not vary"), "%q", f.Warnings)
	assert.InEpsilon(t, 11000/120.0*1e6, f.PerMillionRecords.Value, 0.01)
	assert.InEpsilon(t, 11000, f.TheilSen, 0.01)
	assert.Greater(t, f.MannKendallZ, 3.0)
	assert.Less(t, f.MannKendallP, 0.001)

	// Every lifecycle fails: the counters are collinear, F is dropped.
	in.FailedCloses = append([]float64(nil), in.Lifecycles...)
	f, err = FitSignal(in, DefaultOptions())
	require.NoError(t, err)
	assert.True(t, f.PerLifecycle.Valid)
	assert.False(t, f.PerFailedClose.Valid)
	assert.True(t, hasWarning(f.Warnings, "collinear"), "%q", f.Warnings)
}

func TestFitSignalDegenerate(t *testing.T) {
	tests := map[string]Input{
		"constant":          synth(100, nil, nil),
		"exact line":        synth(100, line(11000), nil),
		"lifecycles frozen": {Y: synth(100, line(1), nil).Y, Lifecycles: make([]float64, 100)},
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			f, err := FitSignal(in, DefaultOptions())
			require.NoError(t, err)
			_, err = json.Marshal(f) // fails on NaN or Inf
			assert.NoError(t, err)
			DecideSignals(f, f, DecideOptions{}) // must not panic
		})
	}
	f, err := FitSignal(synth(100, line(11000), nil), DefaultOptions())
	require.NoError(t, err)
	assert.InDelta(t, 11000, f.PerLifecycle.Value, 1e-6)
	assert.InDelta(t, 11000, f.PerLifecycle.Low, 1e-3)

	f, err = FitSignal(frozen(synth(100, nil, nil)), DefaultOptions())
	require.NoError(t, err)
	assert.False(t, f.PerLifecycle.Valid, "no lifecycles, no slope")
	assert.True(t, hasWarning(f.Warnings, "Lifecycles does not vary"))

	// Negative MaxWarmupFraction disables the cut.
	f, err = FitSignal(synth(500, knee(6000, 150), ar1(seeded(1), 500, 0.7, 20000)), Options{MaxWarmupFraction: -1})
	require.NoError(t, err)
	assert.Equal(t, 0, f.WarmupSamples)
}

// frozen sets the lifecycle counter of x to zero throughout.
func frozen(x Input) Input {
	x.Lifecycles = make([]float64, len(x.Y))
	return x
}

func TestFitSignalCurvatureWarning(t *testing.T) {
	// Quadratic growth: the two halves have different slopes.
	n := 400
	in := synth(n, func(i int) float64 { return 50 * float64(i) * float64(i) }, ar1(seeded(9), n, 0.5, 2000))
	f, err := FitSignal(in, Options{MaxWarmupFraction: 0.01})
	require.NoError(t, err)
	assert.True(t, hasWarning(f.Warnings, "slope is not constant"), "%q", f.Warnings)
}

func hasWarning(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}
