package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

func backlogSample(trigger string, lifecycles int64, seconds float64, open int) schema.Sample {
	return schema.Sample{Trigger: trigger, Lifecycles: lifecycles, ElapsedNs: int64(seconds * 1e9),
		RocksDB: schema.RocksDBMemory{OpenDBs: open}}
}

func TestTimerBacklogByHand(t *testing.T) {
	// Two DBs open at time 0 (registrations 0–5: dump_st, pst_st and
	// flush_info_log at delays 0, 1, 2 s and 3, 4, 5 s), then one open per
	// lifecycle. An entry is held until its delay has passed.
	ss := []schema.Sample{
		backlogSample(schema.TriggerStart, 0, 0, 2),
		// t = 2.5 s: delays 3, 4, 5 of the first two opens, and 6, 7, 8 of this one.
		backlogSample(schema.TriggerLifecycle, 1, 2.5, 3),
		backlogSample(schema.TriggerTimer, 1, 300, 3), // timer samples open nothing
		// t = 700 s: everything before is due; this open's 9, 10 s and 11 mod 10 = 1 s.
		backlogSample(schema.TriggerLifecycle, 2, 700, 3),
		// Lifecycles 3 and 4 spread over 700–710 s: opens at 705 s (12, 13, 4 s: two
		// held) and 710 s (15, 16, 7 s: three); the 700 s open's 9, 10, 1 s are due.
		backlogSample(schema.TriggerLifecycle, 4, 710, 3),
	}
	got := TimerBacklog(ss)
	assert.Equal(t, map[int64]float64{0: 5, 1: 6, 2: 3, 4: 5}, got)
}

func TestTimerBacklogFollowsThePace(t *testing.T) {
	// The same 1,200 lifecycles at 10 and at 2 per second: by the end the
	// slower run has let more of its entries come due, so it holds fewer.
	run := func(perSecond float64) []schema.Sample {
		ss := []schema.Sample{backlogSample(schema.TriggerStart, 0, 0, 4)}
		for l := int64(1); l <= 1200; l++ {
			ss = append(ss, backlogSample(schema.TriggerLifecycle, l, float64(l)/perSecond, 4))
		}
		return ss
	}
	fast, slow := TimerBacklog(run(10)), TimerBacklog(run(2))
	assert.Greater(t, fast[1200], slow[1200]+300)

	in, cov, ok := PairedTimerInput(run(2), run(10), SignalNativeHeap)
	require.True(t, ok)
	require.Len(t, cov, len(in.Y))
	assert.Equal(t, slow[1200]-fast[1200], cov[len(cov)-1])
}

// timerRun is one run of n lifecycles at perSecond lifecycles per second
// whose native heap holds 200 B per RocksDB timer entry (TimerBacklog) plus
// leak bytes per lifecycle and AR(1) noise (φ 0.7, 4 KiB sd), seeded.
func timerRun(n int, perSecond, leak float64, seed uint64) []schema.Sample {
	ss := []schema.Sample{backlogSample(schema.TriggerStart, 0, 0, 4)}
	for l := 1; l <= n; l++ {
		ss = append(ss, backlogSample(schema.TriggerLifecycle, int64(l), float64(l)/perSecond, 4))
	}
	b := TimerBacklog(ss)
	r := rand.New(rand.NewPCG(seed, 3))
	var e float64
	for i := range ss {
		e = 0.7*e + math.Sqrt(1-0.49)*4096*r.NormFloat64()
		l := ss[i].Lifecycles
		ss[i].Model = "m"
		ss[i].NativeHeap = int64(8<<20 + 200*b[l] + leak*float64(l) + e)
		ss[i].RSS = ss[i].NativeHeap + 30<<20
	}
	return ss
}

// TestControlledTakesOutTheTimerBacklog: the model's run went at 10
// lifecycles per second, its control's at 2, so by the end the control has
// let more of RocksDB's timer entries come due and its native heap holds
// fewer, a difference that grows with the lifecycles though neither run
// leaks (negative control); with 96 B per lifecycle leaked in the model's run
// the leak is found (positive control).
func TestControlledTakesOutTheTimerBacklog(t *testing.T) {
	const n = 2400
	for _, tc := range []struct {
		leak float64
		want string
	}{{0, WordInconclusive}, {96, WordLeak}} {
		samples := map[string][]schema.Sample{
			"fixed":           timerRun(n, 2, 0, 1),
			"fixed+synthetic": timerRun(n, 10, tc.leak, 2),
		}
		_, nat := analyzeSyntheticPair(t, samples)
		assert.Equal(t, tc.want, nat.Verdict, "leak %v: %s", tc.leak, nat.Reason)
		assert.True(t, nat.Difference.Low <= tc.leak && tc.leak <= nat.Difference.High, "leak %v: %s", tc.leak, nat.Reason)
	}
}
