package analysis

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// seed34Fits are the lifecycle-only (Total) native-heap and RSS fits of a
// real run whose RSS growth slows while its native heap holds its rate:
// leaky@jemalloc at kafka-20616 seed 34 (rocksleak reliability --scenario
// kafka-20616 --seeds 20 --first-seed 21 --models
// leaky@jemalloc,fixed@jemalloc at c557399), its samples as the run wrote
// them.
func seed34Fits(t *testing.T) (nat, rss schema.SignalFit) {
	t.Helper()
	all, err := schema.ReadSamplesCSV("testdata/kafka-20616-seed34-leaky-jemalloc.samples.csv.gz")
	require.NoError(t, err)
	fits, err := FitSamples(all["leaky@jemalloc"])
	require.NoError(t, err)
	return *fits[SignalNativeHeap].Total, *fits[SignalRSS].Total
}

// TestVerdictReadsTheCurvatureOfTheFits: a run's verdict as Analyze and
// rocksleak report --reanalyze reach it (FitSamples, then Decide on the
// schema's fits) reads the growth-slows test's rates and bound, as
// stats.DecideSignals does on stats.Fit. Until the schema's fits carried
// them (CurvatureRates, Bound), this run was inconclusive on "RSS:
// growth-slows": RSS that slows blocked the leak although the native heap
// held its rate (11.8 then 10.0 KiB/lifecycle, 0.84 of it), and the reason
// said where RSS levels off "cannot be told", though its bound was fitted.
func TestVerdictReadsTheCurvatureOfTheFits(t *testing.T) {
	nat, rss := seed34Fits(t)
	require.Contains(t, rss.Flags, stats.FlagSlows, "the case needs RSS read as slowing")
	require.NotContains(t, nat.Flags, stats.FlagSlows)
	require.Len(t, nat.CurvatureRates, 2)
	require.NotNil(t, rss.Bound)
	require.True(t, rss.Bound.Fitted)

	// Positive: the native heap holds its rate, so RSS's slowing is the
	// allocator's warm-up: a leak.
	d := Decide(nat, rss, DefaultFloors())
	assert.Equal(t, stats.VerdictLeak, d.Verdict, d.Reason)

	// Negative control: the same run with its native heap's rate falling to
	// half: RSS's slowing may be a bound, and the reason quotes the fitted
	// level instead of "cannot be told".
	slowed := nat
	slowed.CurvatureRates = []float64{nat.CurvatureRates[0], nat.CurvatureRates[0] / 2}
	d = Decide(slowed, rss, DefaultFloors())
	assert.Equal(t, stats.VerdictInconclusive, d.Verdict, d.Reason)
	assert.Contains(t, d.Reason, "RSS grows, but its growth slows, so it may be bounded: an exponential approach puts its level at")
	assert.NotContains(t, d.Settle, "twice as long")
}

// TestFitsKeepTheirCurvatureThroughJSON: CurvatureRates and Bound survive
// result.json (a result read back decides as the run did), and a fit
// without them (a result.json written before they were recorded) reads as
// one whose test did not run.
func TestFitsKeepTheirCurvatureThroughJSON(t *testing.T) {
	nat, rss := seed34Fits(t)
	for _, f := range []schema.SignalFit{nat, rss} {
		b, err := json.Marshal(f)
		require.NoError(t, err)
		var back schema.SignalFit
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, f.CurvatureRates, back.CurvatureRates)
		assert.Equal(t, f.Bound, back.Bound)
		sf := statsFit(back)
		assert.Equal(t, f.CurvatureRates, sf.CurvatureRates)
		assert.Equal(t, f.Bound, sf.Bound)
		whole := f.Fit
		whole.Bandwidth = 0 // not written: 0 under the robust intervals every signal is fitted with
		assert.Equal(t, whole, back.Fit, "the whole fit, one type through result.json")
		assert.Zero(t, f.Bandwidth)
	}
	require.NotNil(t, rss.Bound)
	assert.Equal(t, rss.Bound.Level, statsFit(rss).Bound.Level)

	old := rss
	old.CurvatureRates, old.Bound = nil, nil
	sf := statsFit(old)
	assert.Nil(t, sf.CurvatureRates)
	assert.Nil(t, sf.Bound)
}
