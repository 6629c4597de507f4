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
func (r StopRule) Look(st *StopState, lifecycles float64, native, rss Fit, opt DecideOptions) (Decision, bool) {
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
