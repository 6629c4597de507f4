package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

func TestVerdictWord(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		leak *bool
		want string
	}{{&yes, "leak"}, {&no, "no leak"}, {nil, "inconclusive"}} {
		assert.Equal(t, tc.want, VerdictWord(tc.leak))
	}
}

// TestDifferenceIsSubjectMinusBaseline: the one sign convention.
func TestDifferenceIsSubjectMinusBaseline(t *testing.T) {
	fit := func(v float64) schema.SignalFit {
		return schema.SignalFit{Fit: stats.Fit{PerLifecycle: stats.Estimate{Value: v, Low: v - 100, High: v + 100, SE: 50, DF: 30, Valid: true},
			Samples: 32, SamplesUsed: 32, Confidence: 0.95}}
	}
	leaky, fixed := fit(11000), fit(1000)
	d := Difference(leaky, fixed)
	require.True(t, d.Valid)
	assert.InDelta(t, 10000, d.Value, 1e-9, "leaky − fixed: growth beyond the baseline is positive")
	assert.Less(t, d.Low, d.Value)
	assert.Greater(t, d.High, d.Value)
	assert.InDelta(t, -10000, Difference(fixed, leaky).Value, 1e-9)
}

func TestDefaultFloorsAreTheStatsDefaults(t *testing.T) {
	assert.Equal(t, schema.VerdictFloors{NativeHeap: stats.DefaultNativeFloor, RSS: stats.DefaultRSSFloor}, DefaultFloors())
	assert.Equal(t, schema.VerdictFloors{NativeHeap: 2048, RSS: 12288}, DefaultFloors(), "the floors every verdict has used")
}

// linearSamples is a model's samples: a start sample before any lifecycle at
// startRSS/startNative, then n lifecycle samples growing by slope bytes per
// lifecycle from a level 30 MB above it (RocksDB's one-time start), with a
// small deterministic wobble; restoredEvery > 0 adds a restore replaying
// 5,000 records every restoredEvery samples, which leaves perRecord bytes
// of RSS each.
func linearSamples(n int, slope float64, restoredEvery int, perRecord float64) []schema.Sample {
	ss := []schema.Sample{{Model: "m", Trigger: schema.TriggerStart, Memory: schema.Memory{RSS: 2e7, NativeHeap: 4e5}}}
	var rr int64
	for i := 1; i <= n; i++ {
		if restoredEvery > 0 && i%restoredEvery == 0 {
			rr += 5_000
		}
		w := float64((i*7919)%13) * 1_000
		ss = append(ss, schema.Sample{Model: "m", Seq: i, Trigger: schema.TriggerLifecycle, Lifecycles: int64(2 * i),
			Records: int64(20 * i), RestoredRecords: rr,
			Memory: schema.Memory{RSS: int64(5e7 + slope*float64(2*i) + perRecord*float64(rr) + w),
				NativeHeap: int64(3e7 + slope*float64(2*i) + w)}})
	}
	return ss
}

// TestFitSamplesLeaveOutTheStartSample: the start sample (before the first
// store opened) does not move the fits; RSS takes restored records as a
// regressor, the native heap does not.
func TestFitSamplesLeaveOutTheStartSample(t *testing.T) {
	ss := linearSamples(200, 1_000, 0, 0)
	with, err := FitSamples(ss)
	require.NoError(t, err)
	without, err := FitSamples(ss[1:])
	require.NoError(t, err)
	for _, sig := range []string{SignalNativeHeap, SignalRSS} {
		assert.Equal(t, without[sig].Total.PerLifecycle, with[sig].Total.PerLifecycle, sig)
		assert.Equal(t, 200, with[sig].Total.Samples, sig)
		assert.InDelta(t, 1_000, with[sig].Total.BytesPerLifecycle, 50, sig)
	}

	ss = linearSamples(200, 1_000, 10, 40)
	fits, err := FitSamples(ss)
	require.NoError(t, err)
	rss := fits[SignalRSS].Total
	require.NotNil(t, rss.PerRestoredRecord)
	assert.InDelta(t, 40, rss.PerRestoredRecord.Value, 2)
	assert.InDelta(t, 1_000, rss.BytesPerLifecycle, 50, "RSS per lifecycle without the restores' share")
	assert.Nil(t, fits[SignalNativeHeap].Total.PerRestoredRecord)
}

// TestJVMSamplesHaveNoGoHeapFit: a JVM child's samples carry no Go heap
// (schema.Unavailable): that signal is not fitted, the others are, and the
// resident cost per DB is not shifted by the missing value.
func TestJVMSamplesHaveNoGoHeapFit(t *testing.T) {
	ss := linearSamples(200, 1_000, 0, 0)
	for i := range ss {
		ss[i].GoHeap = schema.Unavailable
		ss[i].RocksDB.OpenDBs = 10
	}
	fits, err := FitSamples(ss)
	require.NoError(t, err)
	assert.NotContains(t, fits, SignalGoHeap)
	assert.Contains(t, fits, SignalNativeHeap)
	assert.Contains(t, fits, SignalFDs)
	withGo := append([]schema.Sample(nil), ss...)
	for i := range withGo {
		withGo[i].GoHeap = 0
	}
	assert.Equal(t, residentOf(withGo), residentOf(ss))
	goFits, err := FitSamples(withGo)
	require.NoError(t, err)
	assert.Contains(t, goFits, SignalGoHeap, "a Go child's Go heap is fitted, flat or not")
}

// TestNativeHeapSignalIsTheCodesNativeHeap: the native heap the fits and verdicts read leaves out what the
// instrument's runtime allocated from the same allocator (a JVM child's own mallocs) when it was read, and is the
// whole native heap when it was not (a Go child, older results).
func TestNativeHeapSignalIsTheCodesNativeHeap(t *testing.T) {
	s := schema.Sample{Memory: schema.Memory{NativeHeap: 40 << 20, RuntimeMalloc: 15 << 20}}
	assert.Equal(t, float64(25<<20), SignalValue(s, SignalNativeHeap))
	for _, rm := range []int64{0, schema.Unavailable} {
		s.RuntimeMalloc = rm
		assert.Equal(t, float64(40<<20), SignalValue(s, SignalNativeHeap), "runtime_malloc %d", rm)
	}
}

// TestRSSSignalIsTheCodesRSS: the RSS the fits and verdicts read leaves out the instrument's runtime when it was
// read, and is the whole RSS when it was not (older results, another process).
func TestRSSSignalIsTheCodesRSS(t *testing.T) {
	s := schema.Sample{Memory: schema.Memory{RSS: 40 << 20, RuntimeBytes: 10 << 20, GoHeap: 2 << 20}}
	assert.Equal(t, float64(30<<20), SignalValue(s, SignalRSS))
	assert.Equal(t, float64(2<<20), SignalValue(s, SignalGoHeap))
	for _, rb := range []int64{0, schema.Unavailable} {
		s.RuntimeBytes = rb
		assert.Equal(t, float64(40<<20), SignalValue(s, SignalRSS), "runtime_bytes %d", rb)
	}
}
