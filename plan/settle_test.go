package plan

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

// shortRun is a default-length run of fixed whose RSS grows +5 KiB per
// lifecycle [4.6, 5.9], "no leak": a band whose high end is linear at 5 KiB.
// Its native heap's growth is not significant.
func shortRun(t *testing.T) *schema.Result {
	rss := costs{perLifecycle: est(5_000, 4_000, 6_000), perFailedClose: pt(0), total: est(5_200, 4_600, 5_900)}
	native := costs{perLifecycle: est(300, -300, 900), perFailedClose: pt(0), total: est(300, -300, 900)}
	run := runWith("fixed", native, rss, 1_400_000, 850_000)
	run.ElapsedNs = int64(20 * time.Second)
	no := false
	run.Verdict = &schema.Verdict{Leak: &no}
	return resultWith(t, run)
}

// soakOf synthesizes a soak of fixed: 600 samples over 60,000 lifecycles in
// an hour, the native heap flat, RSS from rss(L) with Gaussian noise of
// 16 KiB (seeded), the ledger flat at 24 read options; its result is made as
// a run makes it (fits of the samples, an inconclusive verdict, its resident
// cost per open DB).
func soakOf(t *testing.T, rss func(L float64) float64) (*schema.Result, []schema.Sample) {
	t.Helper()
	rng := rand.New(rand.NewPCG(44, 2))
	const n, perSample = 600, 100
	var samples []schema.Sample
	for k := 1; k <= n; k++ {
		L := int64(k * perSample)
		s := schema.Sample{Trigger: schema.TriggerLifecycle, Lifecycles: L, FailedCloses: L / 20,
			ElapsedNs: int64(k) * int64(time.Hour) / n, LiveNatives: map[string]int64{"read_options": 24}}
		s.NativeHeap = 32<<20 + int64(rng.NormFloat64()*(16<<10))
		s.RSS = int64(rss(float64(L)) + rng.NormFloat64()*(16<<10))
		samples = append(samples, s)
	}
	fits, err := analysis.FitSamples(samples)
	require.NoError(t, err)
	last := samples[n-1]
	run := &schema.Run{Summary: schema.Summary{Model: "fixed", Lifecycles: last.Lifecycles,
		FailedCloses: last.FailedCloses, ElapsedNs: last.ElapsedNs}, Fits: fits, Verdict: &schema.Verdict{},
		Resident: &schema.Resident{NativeHeapPerDB: 1_400_000, RSSPerDB: 850_000 + float64(last.RSS-40<<20)/24, OpenDBs: 24}}
	r := resultWith(t, run)
	r.Scenario.Lifecycles, r.Scenario.Duration = 0, scenarios.Duration(time.Hour) // another stop condition: the same workload
	return r, samples
}

// A soak settles the short run's RSS band by its own fits. Positive control:
// a soak whose RSS keeps rising at 800 B per lifecycle keeps the band's
// sustained projection, at the soak's later half's rate (not the short run's
// 5 KiB). Negative control: a soak whose RSS levels off (12 MiB by lifecycle
// 12,000, flat after, as the jar soak's RSS from minute 15) removes the high
// end: bounded at the level it held. A
// third: growth that slows without levelling off in the soak is never
// projected as sustained; it stays a band, its high end the later half's rate.
func TestSettledBySoak(t *testing.T) {
	for _, tc := range []struct {
		name string
		rss  func(L float64) float64
		want string
	}{
		{"sustained: RSS keeps rising", func(L float64) float64 { return 40<<20 + 800*L }, GrowthSustained},
		{"levels off", func(L float64) float64 { return 40<<20 + 12<<20*math.Min(1, L/12_000) }, GrowthBounded},
		{"slows, not level within the soak", func(L float64) float64 { return 40<<20 + 60<<20*(1-math.Exp(-L/60_000)) }, GrowthUndetermined},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := shortRun(t)
			unsettled, err := Project(r, topo10x2(), Options{})
			require.NoError(t, err)
			before := unsettled.Signals[1]
			require.Equal(t, GrowthUndetermined, before.Growth)

			soak, samples := soakOf(t, tc.rss)
			p, err := Project(r, topo10x2(), Options{SettledBy: &Settler{Result: soak, Path: "soak",
				Samples: map[string][]schema.Sample{"fixed": samples}}})
			require.NoError(t, err)
			require.NotNil(t, p.Source.SettledBy)
			assert.Equal(t, int64(60_000), p.Source.SettledBy.Lifecycles)
			s := p.Signals[1]
			require.Equal(t, tc.want, s.Growth, s.Settled)
			assert.Equal(t, DecidedBySettler, s.DecidedBy)
			assert.Equal(t, before.Reason, s.Reason, "the run's own reading is kept")
			assert.Equal(t, before.Resident, s.Resident)
			d30, was := s.Usage[len(s.Usage)-1], before.Usage[len(before.Usage)-1]
			base := s.Resident + s.TimerHeld.High
			switch tc.want {
			case GrowthSustained:
				assert.InDelta(t, 800*480.0, s.GrowthPerDay.Expected, 0.1*800*480, "the soak's rate, not the run's")
				assert.InDelta(t, base+30*s.GrowthPerDay.High, d30.High, 1, "linear")
				assert.Greater(t, d30.Low, s.Resident, "the sustained projection is kept at every end")
				assert.Empty(t, s.Settle)
			case GrowthBounded:
				// The soak held 12 MiB above its start over 24 DBs, 60 in
				// production: 30 MiB above the run's resident cost.
				assert.InDelta(t, 30<<20, s.BoundRise, 0.02*(30<<20))
				assert.LessOrEqual(t, d30.High, base+s.BoundRise, "the high end is the level")
				assert.InDelta(t, d30.Low, d30.High, s.TimerHeld.High-s.TimerHeld.Low+1, "no band beyond the timer backlog's")
				assert.Less(t, d30.High, was.High, "no longer the short run's linear high end")
			case GrowthUndetermined:
				assert.Contains(t, s.Settled, "not projected as sustained")
				assert.Less(t, s.GrowthPerDay.High, 1_000*480.0, "the later half's rate, not the whole soak's or the run's")
				assert.Contains(t, s.Settle, "rocksleak run --scenario kafka-20616 --models fixed")
			}
			assert.Equal(t, DecidedBySettler, p.Signals[0].DecidedBy, "the native heap, not significant in the run, is settled too")
			assert.Equal(t, GrowthBounded, p.Signals[0].Growth, "flat in the soak: its level")
		})
	}
}

// The real kafka-4.3.1 soak (testdata, an hour) settles a short run of the
// same model: its native heap sustained by the ledger at the later half's
// rate, its RSS (level at 115-116 MiB from minute 15) bounded, so the band's
// high end is gone.
func TestSettledByRealSoak(t *testing.T) {
	soak, samples := soakRun(t, false)
	soak.Scenario.Lifecycles, soak.Scenario.Duration = 0, scenarios.Duration(time.Hour)
	rss := costs{perLifecycle: est(6_850, 2_030, 11_700), perFailedClose: pt(0), total: est(6_850, 2_030, 11_700)}
	native := costs{perLifecycle: est(697, -629, 765), perFailedClose: pt(0), total: est(697, -200, 1_600)}
	run := runWith("kafka-4.3.1", native, rss, 1_400_000, 2_000_000)
	run.Lifecycles, run.ElapsedNs = 1231, int64(2*time.Minute)
	no := false
	run.Verdict = &schema.Verdict{Leak: &no}
	r := resultWith(t, run)
	before, err := Project(r, topo10x2(), Options{})
	require.NoError(t, err)
	p, err := Project(r, topo10x2(), Options{SettledBy: &Settler{Result: soak, Path: "jar",
		Samples: map[string][]schema.Sample{"kafka-4.3.1": samples}}})
	require.NoError(t, err)
	nat, rs := p.Signals[0], p.Signals[1]
	assert.Equal(t, GrowthSustained, nat.Growth, nat.Settled)
	assert.Contains(t, nat.Settled, "read_options live 1.00 per lifecycle")
	assert.Equal(t, GrowthBounded, rs.Growth, rs.Settled)
	t.Log(rs.Settled)
	base := rs.Resident + rs.TimerHeld.High
	d30, was := rs.Usage[2], before.Signals[1].Usage[2]
	assert.LessOrEqual(t, d30.High, base+rs.BoundRise, "the high end is the level")
	assert.Less(t, d30.High-base, (was.High-base)/4, "no longer the short run's linear high end")
}

// A run that does not measure what the planned run measured, for longer, is
// refused before anything is projected, with the field that differs.
func TestSettlerRefused(t *testing.T) {
	good := func() (*schema.Result, []schema.Sample) {
		return soakOf(t, func(L float64) float64 { return 40<<20 + 800*L })
	}
	for _, tc := range []struct {
		name, field string
		spoil       func(r *schema.Result, samples *[]schema.Sample)
	}{
		{"another model", "model", func(r *schema.Result, _ *[]schema.Sample) {
			r.Runs["leaky"], r.Models = r.Runs["fixed"], []string{"leaky"}
			delete(r.Runs, "fixed")
		}},
		{"another scenario", "scenario", func(r *schema.Result, _ *[]schema.Sample) { r.Scenario.Name = "eos-v2-cascade" }},
		{"another workload", "close_failure_rate", func(r *schema.Result, _ *[]schema.Sample) { r.Scenario.CloseFailureRate = 0.2 }},
		{"another allocator", "allocator", func(r *schema.Result, _ *[]schema.Sample) { r.Provenance.Allocator = spec.AllocatorJemalloc }},
		{"fewer lifecycles", "lifecycles", func(r *schema.Result, _ *[]schema.Sample) { r.Runs["fixed"].Lifecycles = 1500 }},
		{"less time", "elapsed", func(r *schema.Result, _ *[]schema.Sample) { r.Runs["fixed"].ElapsedNs = int64(time.Second) }},
		{"no samples", "samples", func(_ *schema.Result, s *[]schema.Sample) { *s = nil }},
		{"interrupted", "status", func(r *schema.Result, _ *[]schema.Sample) { r.Status = schema.StatusInterrupted }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			soak, samples := good()
			tc.spoil(soak, &samples)
			_, err := Project(shortRun(t), topo10x2(), Options{SettledBy: &Settler{Result: soak, Path: "soak",
				Samples: map[string][]schema.Sample{"fixed": samples}}})
			require.ErrorIs(t, err, ErrUnsuitableSettler)
			assert.Contains(t, err.Error(), "--settled-by soak: ")
			assert.Contains(t, err.Error(), tc.field)
		})
	}
	soak, samples := good()
	_, err := Project(shortRun(t), topo10x2(), Options{SettledBy: &Settler{Result: soak, Path: "soak",
		Samples: map[string][]schema.Sample{"fixed": samples}}})
	require.NoError(t, err, "the control: the same soak unspoilt settles")
}

// The text says which run settled the plan and, per signal, which run
// decided it; a band names the run that settles it as one line to paste,
// then the plan that reads it back.
func TestSettledText(t *testing.T) {
	r := shortRun(t)
	unsettled, err := Project(r, topo10x2(), Options{ResultPath: "runs/short"})
	require.NoError(t, err)
	var before bytes.Buffer
	require.NoError(t, WriteText(&before, unsettled))
	assert.Contains(t, before.String(), "\n    rocksleak run --scenario kafka-20616 --models fixed --duration 1h --out runs/settle-kafka-20616-fixed\n")
	assert.Contains(t, before.String(), "\n    rocksleak plan --result runs/short --model fixed --settled-by runs/settle-kafka-20616-fixed\n")
	assert.NotContains(t, before.String(), "settled by")

	// The native heap levels off within the short run: the run decides it.
	nat := costs{perLifecycle: est(900, 800, 1_000), perFailedClose: pt(0), total: est(900, 800, 1_000)}.fit()
	nat.Total.Bound = &stats.Bound{Rise: 1 << 20, Tau: 100, ReachedAt: 300, Reached: true, Fitted: true}
	r.Runs["fixed"].Fits[analysis.SignalNativeHeap] = nat
	soak, samples := soakOf(t, func(L float64) float64 { return 40<<20 + 12<<20*math.Min(1, L/12_000) })
	p, err := Project(r, topo10x2(), Options{SettledBy: &Settler{Result: soak, Path: "runs/soak/result.json",
		Samples: map[string][]schema.Sample{"fixed": samples}}})
	require.NoError(t, err)
	assert.Equal(t, DecidedByRun, p.Signals[0].DecidedBy)
	var after bytes.Buffer
	require.NoError(t, WriteText(&after, p))
	for _, want := range []string{
		"settled by: runs/soak/result.json (seed 20616, status complete, 60000 lifecycles in 1h0m0s)",
		"  decided by this run",
		"  settled by the longer run runs/soak/result.json (60000 lifecycles, 1h): ",
	} {
		assert.Contains(t, after.String(), want)
	}
}
