package analysis

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
	"github.com/rocksleak/rocksleak/stats/simulate"
)

// series simulates n lifecycle samples whose native heap and RSS grow by
// nat and rss bytes per lifecycle with AR(1) noise.
func series(seed uint64, n int, nat, rss float64) []schema.Sample {
	r := rand.New(rand.NewPCG(seed, 7))
	var en, er float64
	out := make([]schema.Sample, n)
	for i := range out {
		en = 0.7*en + 4000*r.NormFloat64()
		er = 0.7*er + 20000*r.NormFloat64()
		L := float64(i + 1)
		out[i] = schema.Sample{Trigger: schema.TriggerLifecycle, Lifecycles: int64(i + 1), ElapsedNs: int64(i+1) * 1e7,
			Memory: schema.Memory{NativeHeap: int64(4<<20 + nat*L + en), RSS: int64(30<<20 + rss*L + er)}}
	}
	return out
}

// feed gives q the samples one at a time, as the harness does, and returns
// how many it had seen when it said stop (0: never).
func feed(q *Sequential, all []schema.Sample) int {
	if !q.Replay(all) {
		return 0
	}
	return q.Verdict.Samples
}

// TestSequentialStopsOnALeakAfterTheWarmup: a leak at five times the floor
// is called early, never before the rule's minimum samples, and the verdict
// to report is the stopping look's, flagged as an early stop, with
// intervals wider than 95%.
func TestSequentialStopsOnALeakAfterTheWarmup(t *testing.T) {
	all := series(1, 600, 11400, 16000)
	q := &Sequential{PlannedLifecycles: 600}
	n := feed(q, all)
	require.NotZero(t, n, "a leak at five times the floor is called")
	assert.GreaterOrEqual(t, n, 60, "no look before 60 samples")
	assert.Less(t, n, 600)
	require.NotNil(t, q.Stop)
	v := q.StopVerdict()
	require.NotNil(t, v)
	assert.Equal(t, WordLeak, VerdictWord(v.Leak), v.Reason)
	assert.True(t, v.EarlyStop)
	assert.Contains(t, v.Reason, "early verdict at look")
	assert.Greater(t, q.Stop.Confidence, 0.95, "the look's level, not a naive 95%")
	o := q.Outcome()
	assert.Equal(t, RuleName, o.Rule)
	require.NotNil(t, o.Verdict)
	assert.Equal(t, n, o.Verdict.Samples)
}

// TestSequentialGoesOnWhenInconclusive: a slope exactly at the native floor
// (negative control) is never called; the run goes on to its limit and no
// stop verdict replaces the full fit's.
func TestSequentialGoesOnWhenInconclusive(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		all := series(seed, 400, DefaultFloors().NativeHeap, 1000)
		q := &Sequential{PlannedLifecycles: 400}
		assert.Zero(t, feed(q, all), "seed %d: a slope on the floor is not called", seed)
		assert.Nil(t, q.StopVerdict())
	}
}

func TestControlPairs(t *testing.T) {
	for _, tc := range []struct {
		models []string
		want   []ControlPair
	}{
		{[]string{"leaky", "fixed"}, nil},
		{[]string{"fixed", "fixed+synthetic"}, []ControlPair{{"fixed+synthetic", "fixed", "synthetic leak"}}},
		{[]string{"fixed", "all-fixes"}, []ControlPair{{"fixed", "all-fixes", "read-options fix missing"}}},
		{[]string{"options-fix", "fixed", "leaky"}, []ControlPair{{"options-fix", "fixed", "finally fix missing"},
			{"leaky", "options-fix", "offsets-options fix missing"}}},
		{[]string{"fixed", "all-fixes@jemalloc"}, nil},
		// The JVM engine: its synthetic leak against its control, and each
		// version against the next newer one in the run (under the same
		// allocator); a version is not paired with a Go model.
		{[]string{"kafka-4.3.1", "kafka-4.3.1+synthetic", "fixed", "kafka-4.3.0"},
			[]ControlPair{{"kafka-4.3.1+synthetic", "kafka-4.3.1", "synthetic leak"},
				{"kafka-4.3.0", "kafka-4.3.1", "4.3.1's changes missing"}}},
		{[]string{"kafka-4.3.0", "fixed+synthetic", "leaky"}, nil},
		{[]string{"kafka-4.4.0", "kafka-4.3.0", "kafka-4.3.1", "kafka-4.3.2@jemalloc", "kafka-4.3.0@jemalloc"},
			[]ControlPair{{"kafka-4.3.0", "kafka-4.3.1", "4.3.1's changes missing"},
				{"kafka-4.3.1", "kafka-4.4.0", "4.4.0's changes missing"},
				{"kafka-4.3.0@jemalloc", "kafka-4.3.2@jemalloc", "4.3.2's changes missing"}}},
		// RocksJava's read-options fix on the jars: a version against itself with the fix; versions are
		// paired only with versions of the same fix, and the synthetic leak with its own fix's control.
		{[]string{"kafka-4.3.0", "kafka-4.3.1", "kafka-4.3.1+read-options-fix", "kafka-4.3.1+read-options-fix+synthetic"},
			[]ControlPair{{"kafka-4.3.0", "kafka-4.3.1", "4.3.1's changes missing"},
				{"kafka-4.3.1", "kafka-4.3.1+read-options-fix", "read-options fix missing"},
				{"kafka-4.3.1+read-options-fix+synthetic", "kafka-4.3.1+read-options-fix", "synthetic leak"}}},
	} {
		got := ControlPairs(tc.models)
		assert.Equal(t, tc.want, got, "%v", tc.models)
	}
}

// lateLeak is series with its native heap and RSS growing by slope bytes
// per lifecycle from share from of the n samples on: a leak that starts
// late (once a window's retention is reached, after the first restore).
func lateLeak(seed uint64, n int, slope, from float64) []schema.Sample {
	out := series(seed, n, 0, 0)
	k := int(from * float64(n))
	for i := k; i < n; i++ {
		grow := int64(slope * float64(out[i].Lifecycles-out[k].Lifecycles))
		out[i].NativeHeap += grow
		out[i].RSS += grow
	}
	return out
}

// TestGuardedSequentialWaitsForALateLeak: a 6 KiB/lifecycle leak that
// starts at 40% of the run is called "no leak" early by the unguarded rule
// (before it starts), never by the guarded one, which --until-verdict runs
// (NewSequential); on a flat run (negative control) the guarded rule still
// stops early on "no leak", once 75% of the planned run is done.
func TestGuardedSequentialWaitsForALateLeak(t *testing.T) {
	const n = 600
	sc := scenarios.Scenario{Lifecycles: n}
	unguardedNoLeak := 0
	for seed := uint64(1); seed <= 3; seed++ {
		all := lateLeak(seed, n, 6<<10, 0.4)
		un := &Sequential{PlannedLifecycles: n}
		if un.Replay(all) && VerdictWord(un.Verdict.Leak) == WordNoLeak {
			unguardedNoLeak++
		}
		q := NewSequential(sc, DefaultFloors())
		require.True(t, q.Guarded)
		if q.Replay(all) {
			assert.Equal(t, WordLeak, VerdictWord(q.Verdict.Leak), "seed %d: %s", seed, q.Verdict.Reason)
		}
		assert.Equal(t, GuardedRuleName, q.Outcome().Rule)

		flat := NewSequential(sc, DefaultFloors())
		require.True(t, flat.Replay(series(seed, n, 0, 0)), "seed %d: a flat run stops early", seed)
		assert.Equal(t, WordNoLeak, VerdictWord(flat.Verdict.Leak))
		assert.GreaterOrEqual(t, float64(flat.Verdict.Lifecycles), stats.DefaultMinNoLeakShare*n)
		assert.Less(t, flat.Verdict.Lifecycles, int64(n))
	}
	assert.Equal(t, 3, unguardedNoLeak, "the unguarded rule calls the late leak \"no leak\" before it starts")
}

// TestGuardedSequentialWaitsForARestore: in a scenario that restores stores
// (exactly-once with failing closes), "no leak" waits for the first
// restore; once one is seen it stops as before (positive control).
func TestGuardedSequentialWaitsForARestore(t *testing.T) {
	const n = 600
	sc := scenarios.Scenario{Lifecycles: n, ExactlyOnce: true, CloseFailureRate: 0.05}
	q := NewSequential(sc, DefaultFloors())
	require.True(t, q.ExpectRestores)
	assert.False(t, q.Replay(series(1, n, 0, 0)), "no restore seen: no early \"no leak\"")
	assert.Nil(t, q.StopVerdict())

	restored := series(1, n, 0, 0)
	for i := n / 2; i < n; i++ {
		restored[i].Restores = 1
	}
	q = NewSequential(sc, DefaultFloors())
	require.True(t, q.Replay(restored))
	assert.Equal(t, WordNoLeak, VerdictWord(q.Verdict.Leak))
}

// plateauRun123 is statscheck -early's run 123 (seed 11) of its plateau
// case, 3 MiB with τ = 0.3 × the run over 1,500 planned lifecycles, as the
// table's runs give it to the analysis: a start sample, then one sample per
// point.
func plateauRun123(t *testing.T) []schema.Sample {
	t.Helper()
	var c simulate.Case
	for _, k := range simulate.EarlyStopSuite() {
		if k.Name == "plateau 3 MiB, τ = 0.3 × the run" {
			c = k
		}
	}
	require.NotZero(t, c.N)
	h := fnv.New64a() // statscheck's seeding: the case's name, FNV-1a, plus the run's index
	h.Write([]byte(c.Name))
	ni, ri := c.Inputs(rand.New(rand.NewPCG(11, 123+h.Sum64())))
	out := []schema.Sample{{Trigger: schema.TriggerStart, Memory: schema.Memory{NativeHeap: 4 << 20, RSS: 20 << 20}}}
	for i := range ni.Y {
		L := int64(math.Round(ni.Lifecycles[i]))
		out = append(out, schema.Sample{Seq: i + 1, Trigger: schema.TriggerLifecycle, Lifecycles: L, Records: 120 * L,
			ElapsedNs: int64(i+1) * 40e6, Memory: schema.Memory{NativeHeap: int64(ni.Y[i]), RSS: int64(ri.Y[i])}})
	}
	return out
}

// TestGuardedSequentialCallsNoLeakOnGrowthThatLevelsOff: the one run of
// statscheck -early's table at d0a17f5 where the guarded early stop
// contradicted the full run. Growth that levels off (plateau run 123) is
// "no leak" on the full run; the first guarded rule (FirstGuardedRuleName)
// called it a leak at its first look, 15% of the run, where the native
// heap's rate bent too little for the growth-slows flag and its later half
// still held +5 KiB/lifecycle. The rule --until-verdict runs (NewSequential,
// with HoldsToHorizon) carries that bend to the planned horizon, finds it
// below the floor there, and calls no early leak.
func TestGuardedSequentialCallsNoLeakOnGrowthThatLevelsOff(t *testing.T) {
	all := plateauRun123(t)
	fits, err := FitSamples(all)
	require.NoError(t, err)
	full := Decide(*fits[SignalNativeHeap].Total, *fits[SignalRSS].Total, DefaultFloors())
	require.Equal(t, stats.VerdictNoLeak, full.Verdict, full.Reason)

	first := NewSequential(scenarios.Scenario{Lifecycles: simulate.EarlyPlanned}, DefaultFloors())
	first.HoldsToHorizon = false
	require.True(t, first.Replay(all), "the first guarded rule stops early")
	assert.Equal(t, WordLeak, VerdictWord(first.Verdict.Leak), "the contradiction, as the table found it")
	assert.Equal(t, FirstGuardedRuleName, first.Outcome().Rule)

	q := NewSequential(scenarios.Scenario{Lifecycles: simulate.EarlyPlanned}, DefaultFloors())
	if q.Replay(all) {
		assert.NotEqual(t, WordLeak, VerdictWord(q.Verdict.Leak), "an early leak on growth the full run calls no leak: %s", q.Verdict.Reason)
	}
	assert.Equal(t, GuardedRuleName, q.Outcome().Rule)
}
