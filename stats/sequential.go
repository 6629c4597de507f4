package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/units"
)

// StopRule is the early-verdict rule: a run is looked at repeatedly and
// stops at the first conclusive verdict. It is an error-spending rule, not a
// confidence sequence: the Lan–DeMets (1983) spending function of
// O'Brien–Fleming type,
//
//	α(t) = 2 − 2Φ(z₁₋α/₂ / √t),  t = lifecycles so far / PlannedLifecycles ∈ (0, 1],
//
// allots the familywise error Alpha over the looks; look k decides at level
// αₖ = α(tₖ) − α(tₖ₋₁) (each of the two one-sided tests of DecideSignals at
// αₖ/2). The increments are spent by a Bonferroni bound rather than by the
// recursive integration of the exact group-sequential boundary, so the
// familywise false-call rate is at most Alpha if each look's interval is
// honest, whatever the correlation between looks and whatever looks are
// skipped.
//
// No look is taken (and no error spent) while either fit has fewer than
// MinSamples used samples or carries a blocking flag (warm-up not over, slope
// not constant, ...): the first look comes after the warm-up.
//
// Use (the wiring of --until-verdict): keep one StopState per run; after
// each batch of samples fit both signals with FitSignal on everything so
// far and call Look with the lifecycles done; stop when it says so and
// report its Decision (Reason, Settle, EarlyStop, the intervals at
// Decision.Confidence) rather than re-fitting at a naive 95%.
//
// At a stop the verdict's intervals are those of the look's level 1 − αₖ,
// wider than 95%, and the Decision says that the estimate at an early stop
// is biased away from the floor (the run stopped because it looked extreme).
type StopRule struct {
	Alpha             float64 // familywise error of the whole procedure; default 0.05
	PlannedLifecycles float64 // information horizon: the last look is at or after it; must be > 0
	MinSamples        int     // no look before this many samples after the warm-up cut; default 60
	// Guarded makes an early call as safe as the full run's (issue 44):
	// before the planned horizon,
	//
	//   - "no leak" is not called before MinNoLeakShare of the planned
	//     lifecycles, nor while LookData.NotYet names something the run has
	//     not seen yet (a restore): a leak that starts late would not have
	//     shown yet. A 6 KiB/lifecycle leak starting at 40% of the run was
	//     called "no leak" at 15–38% of it without this guard. Nor while the
	//     native heap's warm-up cut takes LongWarmupShare of its samples or
	//     more: growth still levelling off (the full run may find its
	//     warm-up not over);
	//   - "leak" is not called unless the native heap's later half
	//     (LookData.RecentNative) holds the rate: its interval at the look's
	//     level lies above the floor too. Growth that levels off (3 MiB with
	//     τ = 0.3 × the run) was called a leak at 12–19% of the run, where
	//     it still rose at 5 KiB/lifecycle, without this guard.
	//
	// At the horizon the look decides as the full run does. The unguarded
	// rule is kept to replay the results it made.
	Guarded bool
	// HoldsToHorizon (with Guarded) adds a guard on an early "leak": the
	// native heap's rate, carried from the look to the planned horizon as
	// its growth bends over the used samples (rateAtHorizon), stays above
	// the floor. A leak grows at a constant rate; growth that bends, even
	// too little for the fit's growth-slows test (one-sided at 95%), may
	// level off before the run's end, where the full run would not call it
	// a leak. Without it, one plateau run in 200 (3 MiB, τ = 0.3 × the run;
	// statscheck -early's run 123, seed 11) was called a leak at the first
	// look, 15% of the run: its native heap's rate fell from 5.7 to 4.6
	// KiB/lifecycle over the look's samples (true: 6.8 to 4.1), not
	// significantly, and its later half held +5.2 KiB/lifecycle; carried
	// on, that bend reaches 1.5 KiB/lifecycle at the horizon. The full run
	// called it "no leak". False replays the first guarded rule's results.
	HoldsToHorizon bool
	MinNoLeakShare float64 // default DefaultMinNoLeakShare
}

// DefaultMinNoLeakShare is the share of the planned lifecycles before which
// a guarded StopRule calls no "no leak" (statscheck -early measures it).
const DefaultMinNoLeakShare = 0.75

// LookData is what one look sees: the lifecycles so far and both signals'
// fits on everything so far, and for a guarded rule the native heap's fit
// over the later half of its used samples and what the run has not seen
// yet.
type LookData struct {
	Lifecycles  float64
	Native, RSS Fit
	// RecentNative is the native heap fitted over the later half of
	// Native's used samples (no warm-up cut); nil: not fitted, so a guarded
	// rule calls no early leak.
	RecentNative *Fit
	// NotYet names what the run has not seen yet that a leak starting late
	// would need ("a restore"); non-empty: a guarded rule calls no early
	// "no leak".
	NotYet string
}

// StopState is the state a caller carries between looks.
type StopState struct {
	Spent float64 // cumulative error spent so far
	Looks int     // looks taken (skipped ones excluded)
}

// Spend returns the cumulative error α(t) of the O'Brien–Fleming-type
// spending function at information fraction t (clipped to [0, 1]).
func (r StopRule) Spend(t float64) float64 {
	a := r.alpha()
	if t <= 0 {
		return 0
	}
	t = math.Min(t, 1)
	z := distuv.UnitNormal.Quantile(1 - a/2)
	return math.Erfc(z / math.Sqrt(t) / math.Sqrt2) // 2·(1 − Φ(z/√t)), without cancellation
}

func (r StopRule) alpha() float64 {
	if r.Alpha > 0 && r.Alpha < 1 {
		return r.Alpha
	}
	return 0.05
}

// Look takes (or skips) one look at the fits of a run after lifecycles
// lifecycles. It returns the Decision and whether to stop: at a conclusive
// verdict, or at the planned horizon (t ≥ 1) whatever the verdict. A skipped
// look (too few samples, a blocking flag, no error left to spend) returns an
// inconclusive Decision saying why, stop false (true at the horizon).
func (r StopRule) Look(st *StopState, look LookData, opt DecideOptions) (Decision, bool) {
	lifecycles, native, rss := look.Lifecycles, look.Native, look.RSS
	minN := r.MinSamples
	if minN == 0 {
		minN = 60
	}
	t := 1.0
	if r.PlannedLifecycles > 0 {
		t = math.Min(1, lifecycles/r.PlannedLifecycles)
	}
	final := t >= 1
	skip := func(why string) (Decision, bool) {
		d := DecideSignals(native, rss, opt)
		d.Verdict = VerdictInconclusive
		d.Reason = "no look: " + why
		if d.Settle == "" {
			d.Settle = "run on"
		}
		return d, final
	}
	if native.SamplesUsed < minN || rss.SamplesUsed < minN {
		return skip(fmt.Sprintf("fewer than %d samples after the warm-up cut", minN))
	}
	if b := blocking(native, "native heap") + blocking(rss, "RSS"); b != "" {
		return skip(b + " (the fit is not yet trustworthy)")
	}
	spend := r.Spend(t) - st.Spent
	if !(spend > 0) {
		return skip("no error left to spend")
	}
	st.Spent += spend
	st.Looks++
	opt.Alpha = spend / 2
	d := DecideSignals(native, rss, opt)
	if why := r.guard(d, look, t, opt); why != "" && !final {
		d.Verdict = VerdictInconclusive
		d.Reason = "no early call: " + why + " (" + d.Reason + ")"
		d.Settle = "run on"
		return d, false
	}
	if d.Verdict != VerdictInconclusive {
		d.EarlyStop, d.Look = !final, st.Looks
		if final {
			d.Reason += fmt.Sprintf("; verdict at the planned horizon (look %d), intervals at the look's level %s of an O'Brien–Fleming-type error-spending rule", st.Looks, units.FormatPercent(1-spend))
		} else {
			d.Reason += fmt.Sprintf("; early verdict at look %d (%.0f%% of the planned %.0f lifecycles), intervals at the look's level %s of an O'Brien–Fleming-type error-spending rule: the estimate at an early stop is biased away from the floor", st.Looks, 100*t, r.PlannedLifecycles, units.FormatPercent(1-spend))
		}
		return d, true
	}
	return d, final
}

// guard is why a guarded rule does not stop on d before the horizon ("" to
// stop): see StopRule.Guarded.
func (r StopRule) guard(d Decision, look LookData, t float64, opt DecideOptions) string {
	if !r.Guarded {
		return ""
	}
	opt = opt.withDefaults()
	switch d.Verdict {
	case VerdictNoLeak:
		share := r.MinNoLeakShare
		if share <= 0 {
			share = DefaultMinNoLeakShare
		}
		if t < share {
			return fmt.Sprintf("\"no leak\" waits for %.0f%% of the planned lifecycles (%.0f%% so far): a leak that starts later would not have shown yet", 100*share, 100*t)
		}
		if look.NotYet != "" {
			return "\"no leak\" waits for " + look.NotYet + ": a leak that starts then would not have shown yet"
		}
		if n := look.Native; n.Samples > 0 && float64(n.WarmupSamples) >= LongWarmupShare*float64(n.Samples) {
			return fmt.Sprintf("the native heap's warm-up cut takes %d of its %d samples: growth still levelling off may not be over by the run's end", n.WarmupSamples, n.Samples)
		}
	case VerdictLeak:
		if look.RecentNative == nil {
			return "the native heap's later half was not fitted, so its rate is not known to hold"
		}
		e := at(look.RecentNative.PerLifecycle, opt.Alpha)
		if !e.Valid || e.Low <= opt.NativeFloor {
			return fmt.Sprintf("the native heap's later half, %s/lifecycle [%s, %s], does not hold a rate above its floor %s/lifecycle: growth that slows may be bounded",
				units.FormatSignedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High), units.FormatBytes(opt.NativeFloor))
		}
		if r.HoldsToHorizon {
			return r.horizonGuard(look.Native, look.Lifecycles, opt.NativeFloor)
		}
	}
	return ""
}

// horizonGuard is why native's growth is not known to hold above floor up
// to the planned horizon ("" when it is): see StopRule.HoldsToHorizon.
func (r StopRule) horizonGuard(native Fit, lifecycles, floor float64) string {
	rate, ok := rateAtHorizon(native, lifecycles, r.PlannedLifecycles)
	if !ok {
		return "the native heap's fit has no curvature rates, so its rate is not known to hold"
	}
	if rate > floor {
		return ""
	}
	c := native.CurvatureRates
	return fmt.Sprintf("the native heap's growth bends from %s/lifecycle to %s/lifecycle over its used samples; carried on so to the planned %.0f lifecycles it falls to %s/lifecycle, not above its floor %s/lifecycle: growth that levels off may be bounded",
		units.FormatSignedBytes(c[0]), units.FormatSignedBytes(c[1]), r.PlannedLifecycles, units.FormatSignedBytes(rate), units.FormatBytes(floor))
}

// rateAtHorizon is f's growth rate per lifecycle carried from the last used
// sample (at lifecycles) to horizon as it bends over the used samples: the
// curvature test's point estimates of the rate at the first and the last
// used sample (f.CurvatureRates), their ratio taken as the decay of an
// exponential approach (Bound's shape: growth that levels off) over the
// used span and continued over the rest of the run. A rate that does not
// fall is carried flat, one at or below zero as it is. ok is false when f
// has no curvature rates (too few used samples for the test).
func rateAtHorizon(f Fit, lifecycles, horizon float64) (rate float64, ok bool) {
	if len(f.CurvatureRates) != 2 {
		return 0, false
	}
	first, last := f.CurvatureRates[0], f.CurvatureRates[1]
	span := lifecycles - f.WarmupEndLifecycles
	if last <= 0 || last >= first || !(span > 0) || horizon <= lifecycles {
		return last, true
	}
	return last * math.Pow(last/first, (horizon-lifecycles)/span), true
}
