package plan

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

func TestEventsPerDay(t *testing.T) {
	for _, tc := range []struct {
		name                       string
		mut                        func(*Topology)
		rolls, reopens, lifecycles float64
		failedCloses, liveDBs      float64
	}{
		{"10 tasks × 2 stores, 1 h segments", func(*Topology) {}, 480, 0, 480, 0, 60},
		{"30 min segments", func(t *Topology) { t.SegmentInterval = Duration(30 * time.Minute) }, 960, 0, 960, 0, 60},
		{"1 d segments", func(t *Topology) { t.SegmentInterval = Duration(Day) }, 20, 0, 20, 0, 60},
		{"4 rebalances moving every task", func(t *Topology) { t.RebalancesPerDay = 4 }, 480, 240, 720, 0, 60},
		{"4 rebalances moving half the tasks", func(t *Topology) { t.RebalancesPerDay, t.RebalanceShare = 4, 0.5 }, 480, 120, 600, 0, 60},
		{"1% of closes fail", func(t *Topology) { t.RebalancesPerDay, t.CloseFailureRate = 4, 0.01 }, 480, 240, 720, 7.2, 60},
		{"orders-aggregator", func(t *Topology) {
			t.Tasks, t.StoresPerTask, t.LiveSegments, t.RebalancesPerDay, t.CloseFailureRate = 32, 2, 3, 4, 0.01
		}, 1536, 768, 2304, 23.04, 192},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := topo10x2()
			tc.mut(&topo)
			require.NoError(t, topo.Validate())
			e := EventsPerDay(topo)
			assert.Equal(t, tc.rolls, e.SegmentRolls)
			assert.Equal(t, tc.reopens, e.RebalanceReopens)
			assert.Equal(t, tc.lifecycles, e.Lifecycles)
			assert.InDelta(t, tc.failedCloses, e.FailedCloses, 1e-9)
			assert.Equal(t, tc.liveDBs, e.LiveDBs)
		})
	}
}

// Growth per day is cost × events per day, exactly.
func TestGrowthPerDayExact(t *testing.T) {
	native := costs{perLifecycle: pt(11_000), perFailedClose: pt(0), total: est(11_000, 10_000, 12_000)}
	rss := costs{perLifecycle: est(12_000, 10_000, 14_000), perFailedClose: est(50_000, 30_000, 70_000), total: est(13_000, 11_000, 15_000)}
	run := runWith("leaky", native, rss, 400_000, 1_000_000)
	yes := true
	run.Verdict = &schema.Verdict{Leak: &yes}
	r := resultWith(t, run)

	p, err := Project(r, topo10x2(), Options{})
	require.NoError(t, err)
	assert.Equal(t, 480.0, p.Events.Lifecycles)
	nat := p.Signals[0]
	require.Equal(t, analysis.SignalNativeHeap, nat.Signal)
	assert.True(t, nat.Sustained, nat.Reason)
	assert.Equal(t, Range{5_280_000, 5_280_000, 5_280_000}, nat.GrowthPerDay, "11,000 B × 480 lifecycles/day")
	assert.Equal(t, 60*400_000.0, nat.Resident, "10 tasks × 2 stores × 3 live segments × 400 kB")

	// With 1% failed closes (4.8 per day) the failed-close cost adds in.
	topo := topo10x2()
	topo.CloseFailureRate = 0.01
	p, err = Project(r, topo, Options{})
	require.NoError(t, err)
	rs := p.Signals[1]
	require.Equal(t, analysis.SignalRSS, rs.Signal)
	assert.InDelta(t, 4.8, p.Events.FailedCloses, 1e-12)
	assert.InDelta(t, 10_000*480+30_000*4.8, rs.GrowthPerDay.Low, 1e-6)
	assert.InDelta(t, 12_000*480+50_000*4.8, rs.GrowthPerDay.Expected, 1e-6)
	assert.InDelta(t, 14_000*480+70_000*4.8, rs.GrowthPerDay.High, 1e-6)
	// Usage at day d = resident + the timer backlog held + growth × d.
	require.Equal(t, []float64{1, 7, 30}, p.Days)
	assert.Equal(t, GrowthSustained, rs.Growth, rs.Reason)
	for i, d := range p.Days {
		assert.InDelta(t, 60_000_000+rs.TimerHeld.Expected+rs.GrowthPerDay.Expected*d, rs.Usage[i].Expected, 1e-6)
	}
}

func TestLowClampedAtZero(t *testing.T) {
	native := costs{perLifecycle: est(2_000, -1_000, 5_000), perFailedClose: est(-3_000, -9_000, 3_000), total: est(2_500, 500, 4_500)}
	r := resultWith(t, runWith("fixed", native, native, 1, 1))
	topo := topo10x2()
	topo.CloseFailureRate = 0.5
	p, err := Project(r, topo, Options{})
	require.NoError(t, err)
	s := p.Signals[0]
	assert.Equal(t, Range{0, 2_000, 5_000}, s.CostPerLifecycle)
	assert.Equal(t, Range{0, 0, 3_000}, s.CostPerFailedClose)
	assert.Equal(t, Range{0, 2_000 * 480, 5_000*480 + 3_000*240}, s.GrowthPerDay)
	assert.Equal(t, GrowthUndetermined, s.Growth, "no verdict: one run cannot tell")
}

// Growth the verdict calls no leak (below its floor) is a band: bounded at
// the growth the run saw (low, expected), sustained at its rate (high), with
// the command that would settle it. Before, it was projected linearly: the
// expected usage at day 30 was resident + 30 × growth per day.
func TestNoLeakVerdictIsABand(t *testing.T) {
	c := costs{perLifecycle: pt(5_000), perFailedClose: pt(0), total: est(5_200, 4_600, 5_900)}
	run := runWith("fixed", c, c, 1, 1)
	no := false
	run.Verdict = &schema.Verdict{Leak: &no}
	p, err := Project(resultWith(t, run), topo10x2(), Options{})
	require.NoError(t, err)
	s := p.Signals[1]
	assert.False(t, s.Sustained)
	assert.Equal(t, GrowthUndetermined, s.Growth)
	assert.Contains(t, s.Reason, "not a leak")
	assert.Contains(t, s.Settle, "rocksleak run --scenario kafka-20616 --models fixed --duration 1h")
	assert.Equal(t, 5_000*480.0, s.GrowthPerDay.Expected, "the rate, if it kept it")
	// The run saw 5,000 B × 1,500 lifecycles over 24 open DBs; production
	// has 60.
	assert.InDelta(t, 5_000*1500*60/24.0, s.BoundRise, 1e-6)
	base := s.Resident + s.TimerHeld.Expected
	day30 := s.Usage[len(s.Usage)-1]
	assert.LessOrEqual(t, day30.Expected, base+s.BoundRise, "bounded: never above the growth the run saw")
	assert.Greater(t, day30.Expected, base+0.9*s.BoundRise)
	assert.InDelta(t, s.Resident+s.TimerHeld.High+30*s.GrowthPerDay.High, day30.High, 1e-6, "sustained at the high end")
}

func TestNoSustainedGrowthRefused(t *testing.T) {
	for name, total := range map[string]stats.Estimate{
		"interval includes 0":   est(300, -200, 800),
		"lower bound exactly 0": est(300, 0, 600),
		"negative":              est(-500, -900, -100),
		"invalid":               {Value: 9_000},
	} {
		t.Run(name, func(t *testing.T) {
			// The two-counter costs would project growth; the total says
			// there is none to project.
			c := costs{perLifecycle: pt(9_000), perFailedClose: pt(50_000), total: total}
			r := resultWith(t, runWith("fixed", c, c, 500_000, 1_000_000))
			topo := topo10x2()
			topo.Budget = 1 << 30
			p, err := Project(r, topo, Options{})
			require.NoError(t, err)
			for _, s := range p.Signals {
				assert.False(t, s.Sustained)
				assert.Contains(t, s.Reason, "no sustained growth")
				assert.Equal(t, Range{}, s.GrowthPerDay)
				assert.Equal(t, GrowthNone, s.Growth)
				for _, u := range s.Usage {
					assert.Equal(t, s.Resident+s.TimerHeld.Expected, u.Expected, "only the resident cost and the timer backlog")
				}
				assert.Equal(t, ReachNever, s.UntilBudget.Expected.State)
			}
		})
	}
}

func TestReachBudget(t *testing.T) {
	const GiB = 1 << 30
	assert.Equal(t, Reach{State: ReachDays, Days: 10.24}, ReachBudget(2*GiB, GiB, 100<<20))
	assert.Equal(t, Reach{State: ReachNever}, ReachBudget(2*GiB, GiB, 0))
	assert.Equal(t, Reach{State: ReachAlreadyOver}, ReachBudget(GiB, 2*GiB, 100))
	assert.Equal(t, Reach{State: ReachAlreadyOver}, ReachBudget(GiB, 2*GiB, 0))
	assert.Equal(t, Reach{State: ReachDays, Days: 0}, ReachBudget(GiB, GiB, 100), "exactly at the budget: reached now")
}

func TestBudgetTimes(t *testing.T) {
	// Growth low / expected / high = 480 × 1, 2, 4 MiB; resident 60 × 1 MiB.
	c := costs{perLifecycle: est(2<<20, 1<<20, 4<<20), perFailedClose: pt(0), total: est(2<<20, 1<<20, 4<<20)}
	run := runWith("leaky", c, c, 1<<20, 1<<20)
	yes := true
	run.Verdict = &schema.Verdict{Leak: &yes}
	r := resultWith(t, run)
	topo := topo10x2()
	topo.Budget = 4 << 30
	p, err := Project(r, topo, Options{})
	require.NoError(t, err)
	s := p.Signals[0]
	free := func(timer float64) float64 { return float64(4<<30-60<<20) - timer }
	require.NotNil(t, s.UntilBudget)
	assert.InDelta(t, free(s.TimerHeld.Low)/(480<<20), s.UntilBudget.Low.Days, 1e-9, "the low growth reaches it last")
	assert.InDelta(t, free(s.TimerHeld.Expected)/(960<<20), s.UntilBudget.Expected.Days, 1e-9)
	assert.InDelta(t, free(s.TimerHeld.High)/(1920<<20), s.UntilBudget.High.Days, 1e-9)

	topo.Budget = 30 << 20 // below the resident 60 MiB
	p, err = Project(r, topo, Options{})
	require.NoError(t, err)
	assert.Equal(t, ReachAlreadyOver, p.Signals[0].UntilBudget.Low.State)

	topo.Budget = 0
	p, err = Project(r, topo, Options{})
	require.NoError(t, err)
	assert.Nil(t, p.Signals[0].UntilBudget, "no budget, no reach")
}

func TestUsageDays(t *testing.T) {
	assert.Equal(t, []float64{1, 7, 30}, UsageDays(30))
	assert.Equal(t, []float64{1, 7, 10}, UsageDays(10))
	assert.Equal(t, []float64{1, 7, 30, 90}, UsageDays(90))
	assert.Equal(t, []float64{0.5}, UsageDays(0.5))
}

func TestProjectModelsAndResident(t *testing.T) {
	leakyC := costs{perLifecycle: pt(9_000), perFailedClose: pt(450_000), total: est(29_000, 28_000, 30_000)}
	fixedC := costs{perLifecycle: pt(0), perFailedClose: pt(0), total: est(500, -100, 1_100)}
	leaky := runWith("leaky", leakyC, leakyC, 600_000, 700_000)
	yes := true
	leaky.Verdict = &schema.Verdict{Leak: &yes}
	r := resultWith(t, leaky, runWith("fixed", fixedC, fixedC, 450_000, 1_400_000))

	_, err := Project(r, topo10x2(), Options{})
	assert.ErrorIs(t, err, ErrUnusableResult)
	assert.ErrorContains(t, err, "name one with --model")

	_, err = Project(r, topo10x2(), Options{Model: "options-fix"})
	assert.ErrorIs(t, err, ErrUnusableResult)
	assert.ErrorContains(t, err, `no model "options-fix"`)

	p, err := Project(r, topo10x2(), Options{Model: "leaky"})
	require.NoError(t, err)
	assert.Equal(t, 60*600_000.0, p.Signals[0].Resident)
	assert.Contains(t, p.Warnings[0], "which leaks")

	p, err = Project(r, topo10x2(), Options{Model: "leaky", ResidentModel: "fixed"})
	require.NoError(t, err)
	assert.Equal(t, 60*450_000.0, p.Signals[0].Resident)
	assert.Equal(t, 60*1_400_000.0, p.Signals[1].Resident)
	assert.Len(t, p.Warnings, 1, "only that no samples were given: %v", p.Warnings)
	assert.Equal(t, "fixed", p.Source.ResidentModel)

	r.Status = schema.StatusInterrupted
	_, err = Project(r, topo10x2(), Options{Model: "leaky"})
	assert.ErrorIs(t, err, ErrUnusableResult)
	p, err = Project(r, topo10x2(), Options{Model: "leaky", AllowPartial: true})
	require.NoError(t, err)
	assert.Contains(t, p.Warnings[0], "interrupted")

	_, err = Project(r, Topology{}, Options{Model: "leaky"})
	assert.ErrorIs(t, err, ErrInvalidTopology)
}

func TestProjectWithoutFailedCloseCost(t *testing.T) {
	c := costs{perLifecycle: pt(1_000), perFailedClose: stats.Estimate{}, total: est(1_000, 900, 1_100)}
	r := resultWith(t, runWith("fixed", c, c, 0, 0))
	topo := topo10x2()
	topo.CloseFailureRate = 0.1
	p, err := Project(r, topo, Options{})
	require.NoError(t, err)
	assert.Equal(t, 480_000.0, p.Signals[0].GrowthPerDay.Expected)
	assert.Contains(t, p.Warnings[0], "no per-failed-close cost")
	assert.False(t, math.IsNaN(p.Signals[0].GrowthPerDay.High))
}

// Growth the fit saw level off is projected as its bound: the approach to
// the level, scaled to production's open DBs, never above it, whatever the
// rate per lifecycle was. Before, it was projected linearly.
func TestBoundedGrowthProjectedAsItsBound(t *testing.T) {
	c := costs{perLifecycle: pt(5_000), perFailedClose: pt(0), total: est(5_000, 4_000, 6_000)}
	run := runWith("fixed", c, c, 1, 1)
	nat := run.Fits[analysis.SignalNativeHeap]
	nat.Total.Bound = &stats.Bound{Level: 9 << 20, Rise: 4 << 20, Tau: 300, ReachedAt: 900, Reached: true, Fitted: true}
	p, err := Project(resultWith(t, run), topo10x2(), Options{})
	require.NoError(t, err)
	s := p.Signals[0]
	assert.Equal(t, GrowthBounded, s.Growth, s.Reason)
	assert.False(t, s.Sustained)
	assert.InDelta(t, float64(4<<20)*60/24, s.BoundRise, 1e-6, "the run's rise over 24 open DBs, for 60")
	base := s.Resident + s.TimerHeld.Expected
	for _, u := range s.Usage {
		assert.LessOrEqual(t, u.High, s.Resident+s.TimerHeld.High+s.BoundRise+1e-6, "day %v: never above the bound", u.Day)
	}
	assert.InDelta(t, base+s.BoundRise, s.Usage[len(s.Usage)-1].Expected, 0.01*s.BoundRise, "reached by day 30")
	assert.Less(t, s.Usage[len(s.Usage)-1].Expected, base+30*s.GrowthPerDay.Expected, "below the linear projection")
}

// RocksDB's timer backlog is a cost per unit of time: at the harness's pace
// (1,500 lifecycles in 30 s) every lifecycle leaves about two 600 s entries
// behind, which the plan takes out of the cost per lifecycle; production at
// 480 lifecycles a day holds a few entries, whatever the horizon.
func TestTimerBacklogIsPerTime(t *testing.T) {
	var samples []schema.Sample
	for i := 0; i <= 300; i++ {
		samples = append(samples, schema.Sample{Trigger: schema.TriggerLifecycle, Lifecycles: int64(5 * i),
			ElapsedNs: int64(i) * 100e6})
	}
	perLC, ok := timerEntriesPerLifecycle(samples)
	require.True(t, ok)
	assert.InDelta(t, 2, perLC, 0.2, "two 600 s entries per open stay within 30 s; the 10 s one mostly goes")

	c := costs{perLifecycle: pt(500), perFailedClose: pt(0), total: est(500, 300, 700)}
	run := runWith("fixed", c, c, 1, 1)
	yes := true
	run.Verdict = &schema.Verdict{Leak: &yes}
	p, err := Project(resultWith(t, run), topo10x2(), Options{Samples: map[string][]schema.Sample{"fixed": samples}})
	require.NoError(t, err)
	s := p.Signals[0]
	assert.InDelta(t, perLC*190, s.TimerPerLifecycle.Expected, 1e-6)
	assert.InDelta(t, 500-perLC*190, s.CostPerLifecycle.Expected, 1e-6, "the timer's share taken out")
	// 480 opens a day: 3 registrations each, the 600 s ones held ~300 s on
	// average: about 480/86400 × 605 entries.
	entries := productionTimerEntries(480)
	assert.InDelta(t, 480.0/86400*605, entries, 1.5)
	assert.InDelta(t, entries*190, s.TimerHeld.Expected, 1e-6)
	assert.InDelta(t, productionTimerEntries(4.32e6)/productionTimerEntries(4.32e5), 10, 0.1, "proportional to the rate")
}

// The plan's figures are the same to the last bit on every run: the timer's
// regression reads the backlog in lifecycle order (TestBinaryWithoutCgo
// compares two binaries' plan JSON byte for byte). Before, it read a map in
// Go's random order, and 20 reads of these samples gave several slopes.
func TestTimerEntriesPerLifecycleIsDeterministic(t *testing.T) {
	var samples []schema.Sample
	for i := 0; i <= 300; i++ {
		samples = append(samples, schema.Sample{Trigger: schema.TriggerLifecycle, Lifecycles: int64(5*i + i%7),
			ElapsedNs: int64(i)*100e6 + int64(i%13)*7e6})
	}
	first, ok := timerEntriesPerLifecycle(samples)
	require.True(t, ok)
	for range 20 {
		got, _ := timerEntriesPerLifecycle(samples)
		require.Equal(t, math.Float64bits(first), math.Float64bits(got), "%v then %v", first, got)
	}
}

// TestUndeterminedBandEndsDoNotCross: an undetermined growth whose bound is approached fast stands, at day 1,
// above what its rate reaches by then (the fixed model's 1-hour soak: 71.4 MiB against 64.6 MiB); the band's high
// end is then the bound, never below its low end. Before the fix the high end was the rate alone.
func TestUndeterminedBandEndsDoNotCross(t *testing.T) {
	s := &Signal{Growth: GrowthUndetermined, BoundRise: 20 << 20, BoundTauLifecycles: 5000,
		GrowthPerDay: Range{Low: 1 << 20, Expected: 2 << 20, High: 5 << 20}}
	for _, d := range []float64{1, 7, 30} {
		r := s.growthAt(d, 13594)
		if r.High < r.Low || r.High < r.Expected {
			t.Errorf("day %v: band %+v: its high end lies below its low or expected end", d, r)
		}
	}
	// Where the rate outruns the bound (day 30 here: 150 MiB against 20 MiB), the high end is the rate's.
	if r := s.growthAt(30, 13594); r.High != 30*(5<<20) {
		t.Errorf("day 30: high %v, want the rate's %v", r.High, 30*(5<<20))
	}
}
