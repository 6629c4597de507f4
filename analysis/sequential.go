package analysis

import (
	"fmt"
	"math"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// RuleName names the unguarded stopping rule in result.json and the
// report: the rule of runs before issue 44, kept to replay their results.
const RuleName = "O'Brien–Fleming-type error spending (Lan–DeMets), Bonferroni over looks"

// GuardedRuleName names the rule --until-verdict runs with
// (stats.StopRule.Guarded and HoldsToHorizon): RuleName with the guards that
// make an early call as safe as the full run's.
const GuardedRuleName = FirstGuardedRuleName + " and its rate, carried to the planned horizon as its growth bends, stays above the floor"

// FirstGuardedRuleName names the first guarded rule (stats.StopRule.Guarded
// without HoldsToHorizon, d0a17f5), kept to replay the results it made.
const FirstGuardedRuleName = RuleName + "; no early \"no leak\" before 75% of the planned lifecycles, before a restore the scenario makes or while the native heap's warm-up cut is long, no early \"leak\" unless the native heap's later half holds the rate"

// Sequential decides a model's verdict while its run is still going, so the
// run can stop as soon as the verdict is settled. It looks at the samples at
// geometrically spaced sample counts (MinSamples, then ×Growth each time) and
// decides each look by stats.StopRule: an error-spending rule of
// O'Brien–Fleming type over the planned lifecycles, so the familywise rate of
// false calls over all looks stays below Alpha. No look is taken before
// stats.StopRule's minimum of samples after the warm-up cut, nor while a fit
// carries a blocking flag (warm-up not over, slope not constant, ...): an
// inconclusive look lets the run go on rather than guess.
//
// A look settles:
//
//   - the native-heap verdict when the native heap's whole per-lifecycle
//     interval, at the look's level, is above its floor (leak) or below it
//     (no leak);
//   - the verdict when stats.DecideSignals, at the look's level, is leak or
//     no leak. Its Decision (Stop) is what the report shows: the intervals
//     at the look's level, flagged as an early stop (biased away from the
//     floor) when the run stopped before PlannedLifecycles.
//
// Sequential is not safe for concurrent use.
type Sequential struct {
	Floors schema.VerdictFloors
	// PlannedLifecycles is the rule's information horizon: the run's
	// lifecycle limit. When 0, DurationNs (the run's time limit) is used to
	// project it from the lifecycle rate at the first look.
	PlannedLifecycles float64
	DurationNs        int64
	// Guarded runs stats.StopRule.Guarded, and with HoldsToHorizon its
	// guard of that name (GuardedRuleName), as --until-verdict does;
	// Guarded alone is FirstGuardedRuleName and unguarded is RuleName, the
	// rules of older results. ExpectRestores makes a guarded "no leak" wait
	// for a restore (a scenario that restores stores: exactly-once with
	// failing closes).
	Guarded, HoldsToHorizon, ExpectRestores bool
	MinSamples                              int     // samples (timer samples excluded) before the first look; default 60
	Growth                                  float64 // next look at ×Growth samples; default 1.25
	Alpha                                   float64 // family-wise error rate over all looks; default 0.05

	state   stats.StopState
	nextAt  int
	Native  *schema.Look    // when the native-heap verdict settled, nil until then
	Verdict *schema.Look    // when the verdict settled, nil until then
	Stop    *stats.Decision // the decision at the stopping look, nil until then
	conf    float64         // the stopping look's level
	// stopFits are the lifecycle-only (Total) native-heap and RSS fits of
	// the stopping look: the verdict's flags come from the look its reason
	// comes from.
	stopFits [2]schema.SignalFit
}

func (q *Sequential) defaults() {
	if q.MinSamples <= 0 {
		q.MinSamples = 60
	}
	if q.Growth <= 1 {
		q.Growth = 1.25
	}
	if q.Alpha <= 0 {
		q.Alpha = 0.05
	}
	if q.Floors == (schema.VerdictFloors{}) {
		q.Floors = DefaultFloors()
	}
}

// Observe takes the model's samples so far and reports whether the verdict is
// settled (the run may stop). It does work only at look points.
func (q *Sequential) Observe(all []schema.Sample) bool {
	q.defaults()
	if q.Verdict != nil {
		return true
	}
	var samples []schema.Sample
	for _, s := range all {
		if s.Trigger != schema.TriggerTimer {
			samples = append(samples, s)
		}
	}
	n := len(samples)
	if q.nextAt == 0 {
		q.nextAt = q.MinSamples
	}
	if n < q.nextAt {
		return false
	}
	q.nextAt = int(math.Ceil(float64(n) * q.Growth))
	last := samples[n-1]
	if q.PlannedLifecycles <= 0 && q.DurationNs > 0 && last.ElapsedNs > 0 {
		q.PlannedLifecycles = float64(last.Lifecycles) * float64(q.DurationNs) / float64(last.ElapsedNs)
	}
	fits, err := fitSamples(samples, []string{SignalNativeHeap, SignalRSS})
	if err != nil {
		return false
	}
	nat, rss := *fits[SignalNativeHeap].Total, *fits[SignalRSS].Total
	rule := stats.StopRule{Alpha: q.Alpha, PlannedLifecycles: q.PlannedLifecycles, Guarded: q.Guarded, HoldsToHorizon: q.HoldsToHorizon}
	data := stats.LookData{Lifecycles: float64(last.Lifecycles), Native: statsFit(nat), RSS: statsFit(rss)}
	if q.Guarded {
		data.RecentNative = recentNative(samples, nat.WarmupSamples)
		if q.ExpectRestores && last.Restores == 0 {
			data.NotYet = "a restore (the scenario restores stores under exactly-once)"
		}
	}
	// At the planned horizon Look says stop whatever the verdict; the run's
	// own stop condition ends it then, so only a conclusive verdict stops.
	d, _ := rule.Look(&q.state, data, stats.DecideOptions{NativeFloor: q.Floors.NativeHeap, RSSFloor: q.Floors.RSS})
	look := func(leak *bool, reason string) *schema.Look {
		return &schema.Look{Look: q.state.Looks, Samples: n, Lifecycles: last.Lifecycles, ElapsedNs: last.ElapsedNs,
			Confidence: d.Confidence, Leak: leak, Reason: reason}
	}
	if d.Native.Valid && q.state.Looks > 0 && q.Native == nil && d.Confidence > 0 {
		e := d.Native
		yes, no := true, false
		switch {
		case e.Low > q.Floors.NativeHeap:
			q.Native = look(&yes, fmt.Sprintf("native heap %+.0f B/lifecycle, interval [%.0f, %.0f] above the floor %.0f",
				e.Value, e.Low, e.High, q.Floors.NativeHeap))
		case e.High < q.Floors.NativeHeap:
			q.Native = look(&no, fmt.Sprintf("native heap %+.0f B/lifecycle, interval [%.0f, %.0f] below the floor %.0f",
				e.Value, e.Low, e.High, q.Floors.NativeHeap))
		}
	}
	if d.Verdict != stats.VerdictInconclusive {
		q.conf = d.Confidence
		q.Verdict = look(d.Verdict.Leak(), d.Reason)
		q.Stop = &d
		q.stopFits = [2]schema.SignalFit{nat, rss}
		return true
	}
	return false
}

// recentNative is the native heap's lifecycle-only fit over the later half
// of the used samples of samples (timer samples already out), cut the
// first warmup of them as the whole fit was: no warm-up cut of its own. nil
// when it cannot be fitted.
func recentNative(samples []schema.Sample, warmup int) *stats.Fit {
	var in stats.Input
	for _, s := range samples {
		if s.Trigger != schema.TriggerStart {
			in.Lifecycles = append(in.Lifecycles, float64(s.Lifecycles))
			in.Y = append(in.Y, SignalValue(s, SignalNativeHeap))
		}
	}
	from := warmup + (len(in.Y)-warmup)/2
	if from >= len(in.Y) {
		return nil
	}
	in.Lifecycles, in.Y = in.Lifecycles[from:], in.Y[from:]
	in.Unit = Describe(SignalNativeHeap).statsUnit
	opt := OptionsFor(SignalNativeHeap)
	opt.MaxWarmupFraction = -1
	f, err := stats.FitSignal(in, opt)
	if err != nil {
		return nil
	}
	return &f
}

// Rule names q's rule: GuardedRuleName, FirstGuardedRuleName or RuleName.
func (q *Sequential) Rule() string {
	switch {
	case q.Guarded && q.HoldsToHorizon:
		return GuardedRuleName
	case q.Guarded:
		return FirstGuardedRuleName
	}
	return RuleName
}

// Outcome is what the looks found, for the result file.
func (q *Sequential) Outcome() *schema.SequentialOutcome {
	q.defaults()
	return &schema.SequentialOutcome{Confidence: q.conf, Looks: q.state.Looks, Rule: q.Rule(),
		PlannedLifecycles: q.PlannedLifecycles, Native: q.Native, Verdict: q.Verdict}
}

// StopVerdict is the verdict to report for a run that --until-verdict
// stopped: the stopping look's Decision (intervals at the look's level,
// flagged as an early stop), not a re-fit at a naive 95%, with the blocking
// flags of that look's fits. nil when the verdict never settled: the run
// went on to its own limit and its full fit's verdict stands.
func (q *Sequential) StopVerdict() *schema.Verdict {
	if q.Stop == nil {
		return nil
	}
	return VerdictOf(*q.Stop, q.stopFits[0], q.stopFits[1])
}

// Replay gives q a run's samples one at a time, as the harness gave them
// while the run went on (after every sample, until q said stop), and
// reports whether it stopped. Replaying the samples a result recorded takes
// the looks the run took: the same samples at each look, the same fits, the
// same decisions.
func (q *Sequential) Replay(all []schema.Sample) bool {
	for n := 1; n <= len(all); n++ {
		if q.Observe(all[:n]) {
			return true
		}
	}
	return false
}

// applyEarlyStop applies the early stop a result records to run, whose
// samples are all: when run.Sequential names one of this file's rules, the
// looks are replayed, by the rule it names (RuleName,
// FirstGuardedRuleName or GuardedRuleName), over the samples at the
// recorded horizon (Replay) and
// their outcome replaces the record; at a stop, the stopping look's verdict
// replaces the full fit's (StopVerdict). A run without a record (no
// --until-verdict), or one recorded under another rule, keeps its full
// fit's verdict and its record.
func applyEarlyStop(r *schema.Result, run *schema.Run, all []schema.Sample, floors schema.VerdictFloors) {
	rec := run.Sequential
	if rec == nil || (rec.Rule != RuleName && rec.Rule != FirstGuardedRuleName && rec.Rule != GuardedRuleName) {
		return
	}
	q := NewSequential(r.Scenario, floors)
	q.PlannedLifecycles = rec.PlannedLifecycles
	q.Guarded, q.HoldsToHorizon = rec.Rule != RuleName, rec.Rule == GuardedRuleName
	q.Replay(all)
	run.Sequential = q.Outcome()
	if v := q.StopVerdict(); v != nil {
		run.Verdict = v
	}
}

// NewSequential is the guarded early stop of a run of scenario sc, as
// rocksleak run --until-verdict takes it: the planned lifecycles and time
// are sc's stop condition, and "no leak" waits for a restore when sc
// restores stores (exactly-once with failing closes).
func NewSequential(sc scenarios.Scenario, floors schema.VerdictFloors) *Sequential {
	return &Sequential{Floors: floors, PlannedLifecycles: float64(sc.Lifecycles), DurationNs: int64(sc.Duration),
		Guarded: true, HoldsToHorizon: true, ExpectRestores: sc.ExactlyOnce && sc.CloseFailureRate > 0}
}
