package analysis

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// diskFullSamples are a disk-full child's samples: one after each of n
// failed opens, the native heap growing perRetry bytes per open over a
// noisy level.
func diskFullSamples(n int, perRetry float64, seed uint64) []schema.Sample {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := []schema.Sample{{Trigger: schema.TriggerStart, Memory: schema.Memory{NativeHeap: 30 << 20}}}
	for i := 1; i <= n; i++ {
		out = append(out, schema.Sample{Trigger: schema.TriggerLifecycle, InitFailures: int64(i),
			Memory: schema.Memory{NativeHeap: 30<<20 + int64(perRetry*float64(i)+rng.NormFloat64()*2048)}})
	}
	return out
}

// The per-retry leak is the native heap's fit by the run's own estimator:
// the same estimate as FitSamples' native-heap fit of the same series with
// the failed opens as lifecycles (positive control: a 9.6 KiB leak per retry
// is found, its interval above the 2 KiB floor; negative control: with none
// the interval lies below it).
func TestDiskFullPerRetryIsTheNativeHeapFit(t *testing.T) {
	for _, perRetry := range []float64{9_800, 0} {
		ss := diskFullSamples(200, perRetry, 7)
		e, err := DiskFullPerRetry(ss)
		require.NoError(t, err)
		assert.True(t, e.Valid)
		assert.InDelta(t, perRetry, e.Value, 50, "per retry %v", perRetry)
		if perRetry > 0 {
			assert.Greater(t, e.Low, 2048.0, "the leak's interval lies above the native floor")
		} else {
			assert.Less(t, e.High, 2048.0, "no leak: the interval lies below the native floor")
		}

		var in stats.Input
		for _, s := range ss[1:] {
			in.Y = append(in.Y, float64(s.NativeHeap))
			in.Lifecycles = append(in.Lifecycles, float64(s.InitFailures))
			in.FailedCloses = append(in.FailedCloses, 0)
			in.Records = append(in.Records, 0)
		}
		f, err := stats.FitSignal(in, OptionsFor(SignalNativeHeap))
		require.NoError(t, err)
		assert.Equal(t, f.PerLifecycle, e, "the native heap's estimator")
	}
}

// A JVM child's own mallocs (Sample.RuntimeMalloc, megabytes that swing)
// are left out of the per-retry fit, as of every native-heap fit: the same
// samples with them added to the native heap give the same estimate.
func TestDiskFullPerRetryLeavesTheRuntimesMallocsOut(t *testing.T) {
	ss := diskFullSamples(200, 9_800, 7)
	want, err := DiskFullPerRetry(ss)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 1))
	for i := range ss {
		m := int64(6<<20 + rng.IntN(4<<20))
		ss[i].RuntimeMalloc, ss[i].NativeHeap = m, ss[i].NativeHeap+m
	}
	got, err := DiskFullPerRetry(ss)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestDiskFullCostOf(t *testing.T) {
	c := DiskFullCostOf(ReplaceThread, 4, 9_800, DefaultReplaceInterval)
	assert.InDelta(t, 4*60.0/45, c.RetriesPerMin, 1e-9)
	assert.InDelta(t, c.RetriesPerMin*9_800, c.GrowthPerMin, 1e-6)
	assert.Equal(t, 4*9_800.0, c.FirstOpensBytes)
	s := DiskFullCostOf(ShutdownClient, 4, 9_800, time.Minute)
	assert.True(t, s.ClientStops)
	assert.Zero(t, s.GrowthPerMin)
}
