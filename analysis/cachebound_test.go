package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// cacheSamples is an application run's samples between task lives: a start sample, then one per lifecycle for n
// lifecycles, the native heap growing by outside bytes per lifecycle plus the block caches' usage, which grows by
// cache bytes per lifecycle; caches(l) caches are open after lifecycle l, with capacity bytes each. RSS carries
// the same growth. A small deterministic wobble on each.
func cacheSamples(n int, outside, cache float64, caches func(l int) int, capacity int64) []schema.Sample {
	ss := []schema.Sample{{Model: "m", Trigger: schema.TriggerStart, Memory: schema.Memory{RSS: 2e7, NativeHeap: 4e5}}}
	for l := 1; l <= n; l++ {
		w := float64((l*7919)%13) * 100
		usage := int64(cache*float64(l) + float64((l*104729)%7)*50)
		c := caches(l)
		ss = append(ss, schema.Sample{Model: "m", Seq: l, Trigger: schema.TriggerLifecycle, Lifecycles: int64(l),
			Records: int64(100 * l),
			Memory: schema.Memory{RSS: int64(5e7 + (outside+cache)*float64(l) + w),
				NativeHeap: int64(3e7+outside*float64(l)+w) + usage},
			RocksDB: schema.RocksDBMemory{Caches: c, CachesUsage: usage, CachesCapacity: int64(c) * capacity}})
	}
	return ss
}

func analyzeOne(t *testing.T, ss []schema.Sample) *schema.Run {
	t.Helper()
	run := &schema.Run{}
	run.Lifecycles = ss[len(ss)-1].Lifecycles
	r := &schema.Result{Models: []string{"m"}, Runs: map[string]*schema.Run{"m": run}}
	require.NoError(t, Analyze(r, map[string][]schema.Sample{"m": ss}, DefaultFloors()))
	return r.Runs["m"]
}

// TestCacheBound: growth that is a block cache the stores share filling below its capacity is taken out of the
// native heap before the verdict (Kafka's bounded-memory setter: no leak outside its cache); growth that is a cache
// per store open never closed (a leaky setter's, each holding as much) is not, nor a cache already full, and
// growth outside a filling cache is still a leak, with the cache's share named.
func TestCacheBound(t *testing.T) {
	one := func(int) int { return 1 }
	for _, tc := range []struct {
		name           string
		outside, cache float64
		caches         func(int) int
		capacity       int64
		word           string
		bound          bool
	}{
		{"shared cache filling, nothing outside it", 300, 3600, one, 64 << 20, WordNoLeak, true},
		{"growth outside the filling cache", 6000, 3600, one, 64 << 20, WordLeak, true},
		{"a cache per open, never closed (not shared)", 300, 3600, func(l int) int { return l }, 16 << 20, WordLeak, false},
		{"shared cache already full", 300, 3600, one, 3600 * 150, WordLeak, false},
		{"cache flat, heap grows", 6000, 0, one, 64 << 20, WordLeak, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := analyzeOne(t, cacheSamples(150, tc.outside, tc.cache, tc.caches, tc.capacity))
			t.Log(run.Verdict.Reason)
			assert.Equal(t, tc.word, VerdictWord(run.Verdict.Leak), run.Verdict.Reason)
			if !tc.bound {
				assert.Nil(t, run.Verdict.CacheBound)
				assert.NotContains(t, run.Verdict.Reason, "toward its capacity")
				assert.NotContains(t, run.Verdict.Reason, "toward their capacity")
				return
			}
			b := run.Verdict.CacheBound
			require.NotNil(t, b)
			assert.Equal(t, 1, b.Caches)
			assert.InDelta(t, tc.cache, b.Growth.Value, 100, "the cache's own growth per lifecycle")
			assert.InDelta(t, tc.outside, b.Outside.Value, 300, "the native heap outside it")
			assert.InDelta(t, float64(64<<20-150*3600)/3600, b.FullAfter, 200, "lifecycles to full")
			assert.Contains(t, run.Verdict.Reason, "fills toward its capacity")
		})
	}
}
