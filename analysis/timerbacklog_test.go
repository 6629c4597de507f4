package analysis

import (
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
