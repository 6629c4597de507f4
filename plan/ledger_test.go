package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// soakRun reads testdata/soak-kafka-4.3.1-1h.samples.csv.gz (every 50th
// lifecycle sample, and every start, timer and end sample, of `make soak
// SOAK_MODELS=kafka-4.3.1 SOAK_OUT=/work/soak/jar` at 8bfd89e, 2026-12-06:
// 134,504 lifecycles in 1 h, one RocksJava default ReadOptions left live per
// open), with the ledger's live read options zeroed when flat is set (the
// negative control: the same growth, no kind that rises), and makes its
// result as the run did: fits of the samples, an inconclusive verdict.
func soakRun(t *testing.T, flat bool) (*schema.Result, []schema.Sample) {
	t.Helper()
	all, err := schema.ReadSamplesCSV("testdata/soak-kafka-4.3.1-1h.samples.csv.gz")
	require.NoError(t, err)
	samples := all["kafka-4.3.1"]
	require.NotEmpty(t, samples)
	if flat {
		for i := range samples {
			samples[i].LiveNatives["read_options"] = 0
		}
	}
	fits, err := analysis.FitSamples(samples)
	require.NoError(t, err)
	last := samples[len(samples)-1]
	run := &schema.Run{Summary: schema.Summary{Model: "kafka-4.3.1", Lifecycles: last.Lifecycles,
		FailedCloses: last.FailedCloses, ElapsedNs: last.ElapsedNs},
		Fits: fits, Verdict: &schema.Verdict{}, Resident: &schema.Resident{NativeHeapPerDB: 2.2 * 1024 * 1024, RSSPerDB: 2.84 * 1024 * 1024, OpenDBs: 24}}
	return resultWith(t, run), samples
}

// A ledger kind that rises one per lifecycle makes the native heap's growth
// sustained, projected linearly at the later half's rate; the same run with
// a flat ledger stays a band, and its settle command is longer than the run.
func TestLedgerGrowthIsSustained(t *testing.T) {
	for _, tc := range []struct {
		name string
		flat bool
		want string
	}{
		{"read options live one per lifecycle", false, GrowthSustained},
		{"the same run, its ledger flat", true, GrowthUndetermined},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, samples := soakRun(t, tc.flat)
			p, err := Project(r, topo10x2(), Options{Samples: map[string][]schema.Sample{"kafka-4.3.1": samples}})
			require.NoError(t, err)
			nat := p.Signals[0]
			require.Equal(t, analysis.SignalNativeHeap, nat.Signal)
			require.Equal(t, tc.want, nat.Growth, nat.Reason)
			if tc.flat {
				assert.NotContains(t, nat.Settle, "--duration 1h", "the run was already an hour")
				assert.Contains(t, nat.Settle, "rocksleak run --scenario")
				return
			}
			assert.Contains(t, nat.Reason, "read_options live 1.00 per lifecycle")
			// Linear: usage grows by the same amount every day.
			d7, d30 := nat.Usage[1], nat.Usage[2]
			assert.InDelta(t, 23*nat.GrowthPerDay.Expected, d30.Expected-d7.Expected, 1)
			assert.Greater(t, nat.GrowthPerDay.Low, 0.0)
			assert.Empty(t, nat.Settle)
			if p.Signals[1].Growth != GrowthSustained {
				assert.Contains(t, strings.Join(p.Warnings, "\n"), "RSS is projected by its own fit")
			}
		})
	}
}

// The settle command is never the run that was made: a short run gets a soak
// of an hour, an hour's run the lifecycles to its fitted level, or twice its
// duration. It is one command a shell runs as it is (its reason apart), and
// writes where the plan's next command reads it.
func TestSettleCommandIsLongerThanTheRun(t *testing.T) {
	level := &stats.Bound{Fitted: true, ReachedAt: 494_599}
	for _, tc := range []struct {
		name       string
		lifecycles int64
		ran        time.Duration
		b          *stats.Bound
		want, why  string
	}{
		{"a default run", 1500, 40 * time.Second, level, "--duration 1h", "an hour"},
		{"an hour's soak, a level beyond it", 134_504, time.Hour, level, "--lifecycles 495000",
			"to the level the run's fit approaches; this run did 134504, about 3.7 h at its pace"},
		{"an hour's soak, no level", 134_504, time.Hour, nil, "--duration 2h", "twice this run's 1h"},
		{"an hour's soak past its level", 600_000, time.Hour, level, "--duration 2h", "twice this run's 1h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := settleRun("kafka-20616", "kafka-4.3.1", tc.lifecycles, tc.ran, tc.b)
			assert.Equal(t, "rocksleak run --scenario kafka-20616 --models kafka-4.3.1 "+tc.want+
				" --out runs/settle-kafka-20616-kafka-4.3.1", got)
			assert.Contains(t, why, tc.why)
			assert.NotContains(t, got, "(", "a shell runs it as it is")
			assert.Equal(t, "rocksleak plan --result R.json --model kafka-4.3.1 --settled-by runs/settle-kafka-20616-kafka-4.3.1",
				settledByCommand("", "kafka-20616", "kafka-4.3.1"))
		})
	}
}

// A short run whose native heap growth is not significant projects none, and
// says so when its ledger counts a kind rising with lifecycles; a flat ledger
// says nothing.
func TestLedgerWithoutSignificantGrowthWarns(t *testing.T) {
	native := costs{perLifecycle: est(300, -300, 900), perFailedClose: pt(0), total: est(300, -300, 900)}
	rss := costs{perLifecycle: est(100, -100, 300), perFailedClose: pt(0), total: est(100, -100, 300)}
	for _, tc := range []struct {
		name string
		live func(L int64) int64
		warn bool
	}{
		{"one read options per lifecycle", func(L int64) int64 { return L }, true},
		{"the open stores' read options", func(int64) int64 { return 24 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var samples []schema.Sample
			for L := int64(1); L <= 1500; L++ {
				samples = append(samples, schema.Sample{Trigger: schema.TriggerLifecycle, Lifecycles: L,
					ElapsedNs: L * 1e7, LiveNatives: map[string]int64{"read_options": tc.live(L)}})
			}
			r := resultWith(t, runWith("fixed", native, rss, 400_000, 1_000_000))
			p, err := Project(r, topo10x2(), Options{Samples: map[string][]schema.Sample{"fixed": samples}})
			require.NoError(t, err)
			assert.Equal(t, GrowthNone, p.Signals[0].Growth)
			warned := strings.Contains(strings.Join(p.Warnings, "\n"), "the ledger counts read_options live 1.00 per lifecycle")
			assert.Equal(t, tc.warn, warned, p.Warnings)
		})
	}
}

// An application's samples inside its lifecycles (its stores open: after_open, before_close) are not read by the
// ledger's rule nor by the later half's fit, as analysis.Analyze reads none of them across lifecycles: with a
// before_close sample 50 MiB higher beside every lifecycle sample the projection is the same. Failed before the plan
// read schema.BetweenLifecycles: the later half's interval took the within-lifecycle samples' swing.
func TestLedgerGrowthReadsBetweenLifecycles(t *testing.T) {
	r, samples := soakRun(t, false)
	opt := func(ss []schema.Sample) Options {
		return Options{Samples: map[string][]schema.Sample{"kafka-4.3.1": ss}}
	}
	want, err := Project(r, topo10x2(), opt(samples))
	require.NoError(t, err)
	var with []schema.Sample
	for _, s := range samples {
		if s.Trigger == schema.TriggerLifecycle {
			in := s
			in.Trigger, in.NativeHeap, in.RSS = schema.TriggerBeforeClose, s.NativeHeap+50<<20, s.RSS+50<<20
			with = append(with, in)
		}
		with = append(with, s)
	}
	got, err := Project(r, topo10x2(), opt(with))
	require.NoError(t, err)
	assert.Equal(t, want.Signals[0].Reason, got.Signals[0].Reason)
	assert.Equal(t, want.Signals[0].Usage, got.Signals[0].Usage)
}
