package plan

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// The kinds of growth a signal's projection follows (Signal.Growth).
const (
	// GrowthNone: the total growth per lifecycle is not significantly
	// positive; only the resident and per-time costs are projected.
	GrowthNone = "none"
	// GrowthBounded: the fit saw the growth level off (its bound, fitted and
	// reached within the run): projected as its exponential approach to that
	// level, never beyond it.
	GrowthBounded = "bounded"
	// GrowthSustained: the verdict is a leak (which no flag against a
	// constant rate blocked): the run measured growth that keeps its rate,
	// projected linearly.
	GrowthSustained = "sustained"
	// GrowthUndetermined: significant growth one run cannot call bounded or
	// sustained (a "no leak" below the floor, an inconclusive verdict, growth
	// that slows without levelling off in the run): projected as a band, its
	// low and expected ends bounded, its high end sustained, with the command
	// that would settle it (Signal.Settle).
	GrowthUndetermined = "undetermined"
)

// Per-time costs: RocksDB's periodic-task timer backlog. Every DB open
// registers timer entries that a close cancels but the timer frees only when
// they come due, up to 600 s later (analysis.TimerBacklog). The entries held
// are set by opens per second and the tasks' delays, not by the count of
// lifecycles: a run that packs a production day's lifecycles into minutes
// holds hundreds of times the entries production does, and its per-lifecycle
// slope carries them. The plan takes the run's share out of the cost per
// lifecycle and adds production's own backlog, bounded, reached after
// timerSettle.
var (
	// timerBytesPerEntry is what one timer entry costs in the native heap,
	// low / expected / high: the fitted coefficient of the paired verdict's
	// backlog regressor, a median of 189, 176 and 190 B per entry on three
	// sets of ten A/A pairs, range 125-336 B (`go run ./scripts/statscheck
	// -paired-timer DIR`, docs/findings.md, 2026-12-03 night).
	timerBytesPerEntry = Range{Low: 125, Expected: 190, High: 336}
	// timerSettle is the longest timer period: production's backlog is at
	// its level once the process has run that long.
	timerSettle = 600.0 // seconds
)

// timerEntriesPerLifecycle is the slope of the run's timer backlog
// (analysis.TimerBacklog, entries at each sample) on its lifecycle count, by
// least squares; ok is false when samples give no backlog to fit.
func timerEntriesPerLifecycle(samples []schema.Sample) (float64, bool) {
	backlog := analysis.TimerBacklog(samples)
	if len(backlog) < 3 {
		return 0, false
	}
	// In lifecycle order: the regression's sums, and so the plan's figures,
	// are then the same to the last bit on every run (a map's order is not).
	var x, y []float64
	for _, lc := range slices.Sorted(maps.Keys(backlog)) {
		x = append(x, float64(lc))
		y = append(y, backlog[lc])
	}
	if stat.Variance(x, nil) == 0 {
		return 0, false
	}
	_, slope := stat.LinearRegression(x, y, nil, false)
	return slope, true
}

// productionTimerEntries is the timer backlog production holds once
// settled, at lifecyclesPerDay DB opens spread evenly over the day: the same
// model (analysis.TimerBacklog) run on samples of production's own pace, one
// per open over twice the longest period, read at the last. Above
// maxTimerRate opens a second it is run at that rate and scaled: once
// settled the backlog is proportional to the rate of opens (each open's
// entries live their delays, spread evenly over each period).
func productionTimerEntries(lifecyclesPerDay float64) float64 {
	perSec := lifecyclesPerDay / 86400
	rate := min(perSec, maxTimerRate)
	n := int(math.Ceil(rate * 2 * timerSettle))
	if n < 1 {
		return 0
	}
	samples := []schema.Sample{{Trigger: schema.TriggerStart}}
	for k := 1; k <= n; k++ {
		samples = append(samples, schema.Sample{Trigger: schema.TriggerLifecycle,
			ElapsedNs: int64(float64(k) / rate * 1e9), Lifecycles: int64(k)})
	}
	return analysis.TimerBacklog(samples)[int64(n)] * perSec / rate
}

// maxTimerRate is the rate of opens productionTimerEntries models directly.
const maxTimerRate = 5.0 // opens per second

// classify says how a signal's significant growth is projected and why.
func classify(fit schema.SignalFit, v *schema.Verdict) (kind, why string) {
	b := boundOf(fit)
	switch {
	case b != nil && b.Fitted && b.Reached:
		return GrowthBounded, fmt.Sprintf("bounded: the growth levels off within the run, %s above its start, 95%% of it by lifecycle %.0f",
			signedBytes(b.Rise), b.ReachedAt)
	case v != nil && v.Leak != nil && *v.Leak:
		return GrowthSustained, "sustained: the verdict is a leak (a rate that holds over the run); projected linearly"
	case v != nil && v.Leak != nil && !*v.Leak:
		return GrowthUndetermined, "not a leak (its rate lies below the verdict's floor), but one run cannot tell whether it levels off (allocator, caches, warm-up) or keeps its rate"
	case b != nil && b.Fitted:
		return GrowthUndetermined, fmt.Sprintf("the growth slows (it would level off %s above its start by lifecycle %.0f) but the run did not see it level off",
			signedBytes(b.Rise), b.ReachedAt)
	}
	return GrowthUndetermined, "one run cannot tell whether this growth levels off or keeps its rate (the verdict is not a leak with a constant rate)"
}

// boundOf is the fitted approach to a level of the total fit, else of the
// two-counter fit; nil when neither slows.
func boundOf(fit schema.SignalFit) *stats.Bound {
	if fit.Total != nil && fit.Total.Bound != nil {
		return fit.Total.Bound
	}
	return fit.Bound
}

// settleRun is the run that would settle undetermined growth, never the run
// that was already made, as a command a user can paste (cmd) and why it is
// that long (why): a run shorter than an hour gets a soak of an hour (long
// enough to see RocksDB's 600 s timer and the allocator settle); a longer one
// the lifecycles by which the fitted level would be 95% reached (b, when
// beyond the run, rounded up to a thousand), else twice its duration in whole
// hours. It writes to settleOut(scenario, model), which settledByCommand
// feeds back to the plan.
func settleRun(scenario, model string, lifecycles int64, ran time.Duration, b *stats.Bound) (cmd, why string) {
	base := fmt.Sprintf("rocksleak run --scenario %s --models %s", scenario, model)
	out := " --out " + settleOut(scenario, model)
	switch {
	case ran < time.Hour:
		return base + " --duration 1h" + out, "an hour, for RocksDB's 600 s timer to come due six times and the allocator to settle; make soak runs the same"
	case b != nil && b.Fitted && lifecycles > 0 && b.ReachedAt > float64(lifecycles):
		n := math.Ceil(b.ReachedAt/1000) * 1000
		return fmt.Sprintf("%s --lifecycles %.0f%s", base, n, out), fmt.Sprintf("to the level the run's fit approaches; this run did %d, about %.1f h at its pace",
			lifecycles, ran.Hours()*n/float64(lifecycles))
	}
	return fmt.Sprintf("%s --duration %s%s", base, shortDuration((2 * ran).Round(time.Hour)), out),
		fmt.Sprintf("twice this run's %s", shortDuration(ran.Round(time.Minute)))
}

// settleOut is the directory the settling run writes to.
func settleOut(scenario, model string) string { return "runs/settle-" + scenario + "-" + model }

// settledByCommand is the plan again, settled by the run of settleRun: the
// result at resultPath ("R.json" when unknown), model, and --settled-by its
// output directory.
func settledByCommand(resultPath, scenario, model string) string {
	if resultPath == "" {
		resultPath = "R.json"
	}
	return fmt.Sprintf("rocksleak plan --result %s --model %s --settled-by %s", resultPath, model, settleOut(scenario, model))
}

// shortDuration is d as --duration reads it, without zero minutes and
// seconds: "2h", "1h30m".
func shortDuration(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}

// growthAt is the lifecycle-driven growth by day d: linear for sustained,
// the approach to the bound for bounded, and for undetermined the bounded
// end (low, expected) and the sustained end (high), never below the bounded
// end. scale is production's
// open DBs over the run's: a bound (and the growth the run saw) is a
// process's, for the stores it held.
func (s *Signal) growthAt(d, lifecyclesPerDay float64) Range {
	linear := s.GrowthPerDay.scale(d)
	if s.Growth == GrowthSustained || s.Growth == GrowthNone {
		return linear
	}
	var bounded float64
	if s.BoundRise > 0 {
		L := lifecyclesPerDay * d
		bounded = s.BoundRise * (1 - math.Exp(-L/s.BoundTauLifecycles))
	}
	if s.Growth == GrowthBounded {
		return Range{bounded, bounded, bounded}
	}
	// The high end is the larger of the two: a bound the growth approaches fast can stand above what its
	// rate reaches by day d (day 1 of a soak's plan), and the band's ends must not cross.
	return Range{Low: bounded, Expected: bounded, High: math.Max(linear.High, bounded)}
}

// boundDesc describes the bounded end for people.
func (s *Signal) boundDesc(lifecyclesPerDay float64) string {
	if s.BoundRise <= 0 {
		return "no growth per lifecycle beyond the timer backlog"
	}
	reach := s.BoundTauLifecycles * math.Log(20) / lifecyclesPerDay
	return fmt.Sprintf("%s, 95%% of it by day %.1f at production's rate", units.FormatBytes(s.BoundRise), reach)
}

// untilBudget is when usage (base plus the growth of growthAt) reaches
// budget, at each end.
func (s *Signal) untilBudget(budget float64, base Range, lifecyclesPerDay float64) *Reaches {
	linear := func(b, g float64) Reach { return ReachBudget(budget, b, g) }
	bounded := func(b float64) Reach {
		switch {
		case b > budget:
			return Reach{State: ReachAlreadyOver}
		case s.BoundRise <= 0 || b+s.BoundRise <= budget:
			return Reach{State: ReachNever}
		}
		L := -s.BoundTauLifecycles * math.Log(1-(budget-b)/s.BoundRise)
		return Reach{State: ReachDays, Days: L / lifecyclesPerDay}
	}
	switch s.Growth {
	case GrowthBounded:
		return &Reaches{Low: bounded(base.Low), Expected: bounded(base.Expected), High: bounded(base.High)}
	case GrowthUndetermined:
		return &Reaches{Low: bounded(base.Low), Expected: bounded(base.Expected), High: linear(base.High, s.GrowthPerDay.High)}
	}
	return &Reaches{Low: linear(base.Low, s.GrowthPerDay.Low), Expected: linear(base.Expected, s.GrowthPerDay.Expected),
		High: linear(base.High, s.GrowthPerDay.High)}
}
