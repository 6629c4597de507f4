package stats

import (
	"fmt"
	"math"
	"strings"

	"github.com/rocksleak/rocksleak/internal/units"
)

// rssDirectionFlags are the RSS flags that undermine RSS's rate but not
// whether it is consistent with a leak: a rate that changes (a growing restore volume, say), and a
// warm-up cut at its limit (the early samples may still be settling; the used
// ones still show which way RSS goes).
var rssDirectionFlags = []Flag{FlagSlopeNotConstant, FlagWarmupAtLimit}

// leakOnRSSDirection decides "leak" when RSS's only blocking flags are among
// rssDirectionFlags and everything else a leak needs holds: the native heap's
// fit has no blocking flag, its growth does not slow and its interval lies
// above its floor, and RSS is consistent with a leak in each half of its
// used samples (each half's interval reaches the native floor; the whole
// interval when the halves could not be fitted).
// The leak call needs RSS not to contradict the native heap, never RSS's
// rate, so those flags do not undermine it; the reason names the flags and
// quotes the halves. It reports whether it decided.
func (d *Decision) leakOnRSSDirection(native, rss Fit, opt DecideOptions, natDesc string) bool {
	if blocking(native, "") != "" || native.HasFlag(FlagSlows) || rss.HasFlag(FlagSlows) || !(d.Native.Low > opt.NativeFloor) {
		return false
	}
	why := rssDirectionOnly(rss)
	if len(why) == 0 {
		return false
	}
	conf := " (" + units.FormatPercent(d.Confidence) + ")"
	lead := fmt.Sprintf("leak: %s lies above its floor %s/lifecycle, and RSS, though %s, reaches that floor", natDesc, units.FormatBytes(opt.NativeFloor), strings.Join(why, " and "))
	if len(rss.Halves) != 2 {
		if !(d.RSS.High >= opt.NativeFloor) {
			return false
		}
		d.Verdict = VerdictLeak
		d.Reason = fmt.Sprintf("%s: %s%s", lead, describe(d.RSS, 0), conf)
		return true
	}
	first, second := at(rss.Halves[0], opt.Alpha), at(rss.Halves[1], opt.Alpha)
	if !first.Valid || !second.Valid || first.High < opt.NativeFloor || second.High < opt.NativeFloor {
		return false
	}
	d.Verdict = VerdictLeak
	d.Reason = fmt.Sprintf("%s in both halves of its used samples: %s then %s%s", lead, describe(first, 0), describe(second, 0), conf)
	return true
}

// noLeakOnRSSDirection decides "no leak" when RSS's only blocking flags are
// among rssDirectionFlags and everything else "no leak" needs holds: the
// native heap's fit has no blocking flag and its interval lies below its
// floor, and RSS's interval lies below RSSFloor over all its used samples
// and over the later half of them. A warm-up left in the used samples (the
// cut at its limit) is early growth that raises the fitted rate, and a rate
// that changes is bounded by the later half's: with the later half below
// the floor neither hides a rise, so they do not undermine "no leak".
// The fixed model's RSS keeps warming up through half of a 1,500-lifecycle
// kafka-20616 run (cut at its 50% limit in 5 of 20 seeds at 5444520, RSS
// +2.8 to +5.3 KiB/lifecycle against the 12 KiB floor). Without halves it
// does not decide. It reports whether it decided.
func (d *Decision) noLeakOnRSSDirection(native, rss Fit, opt DecideOptions, natDesc string) bool {
	if blocking(native, "") != "" || !(d.Native.High < opt.NativeFloor) || !(d.RSS.High < opt.RSSFloor) || len(rss.Halves) != 2 {
		return false
	}
	why := rssDirectionOnly(rss)
	if len(why) == 0 {
		return false
	}
	later := at(rss.Halves[1], opt.Alpha)
	if !later.Valid || !(later.High < opt.RSSFloor) {
		return false
	}
	conf := " (" + units.FormatPercent(d.Confidence) + ")"
	d.Verdict = VerdictNoLeak
	d.Reason = fmt.Sprintf("no leak: %s lies below its floor %s/lifecycle, and RSS, though %s, lies below its floor %s/lifecycle over its used samples and their later half: %s and %s%s",
		natDesc, units.FormatBytes(opt.NativeFloor), strings.Join(why, " and "), units.FormatBytes(opt.RSSFloor), describe(d.RSS, 0), describe(later, 0), conf)
	return true
}

// holdsItsRate reports whether f's growth shows no material slowing even
// as a point estimate: the quadratic of its curvature test puts the rate at
// the last used sample at slowsRatio or more of the rate at the first. RSS
// that slows while the native heap holds its rate is the allocator's
// warm-up (RSS grew faster than the bytes in use while the arenas filled),
// not growth levelling off: RSS cannot level off while the heap it holds
// keeps growing. The leaky model's RSS at the default seed was flagged so
// in a fresh clone's make run, its native heap straight at +11.0
// KiB/lifecycle [10.4, 11.6]. DecideSignals reads it so only while RSS
// itself rises significantly (its interval's lower bound above zero): RSS
// that slows to flat or falling says the growth is not the heap's. On
// restore-peak's fixed model (transient 8 MiB restore buffers, held in
// more of the samples as the run goes on) the native heap's mean rises
// about +12 KiB/lifecycle while the level it falls back to between
// restores stays flat, and RSS slows from rising to falling (curvature
// rates +142 then −859 KiB/lifecycle in one run): with RSS's interval
// around zero, a run was called a leak without that condition.
func holdsItsRate(f Fit) bool {
	return len(f.CurvatureRates) == 2 && f.CurvatureRates[0] > 0 && f.CurvatureRates[1] >= slowsRatio*f.CurvatureRates[0]
}

// rssDirectionOnly describes rss's blocking flags when they are all among
// rssDirectionFlags ("not at a constant rate", "with its warm-up cut at its
// limit"), and returns nil when it has none or another blocking flag.
func rssDirectionOnly(rss Fit) []string {
	var why []string
	for _, k := range blockingFlags {
		if !rss.HasFlag(k) {
			continue
		}
		switch k {
		case FlagSlopeNotConstant:
			why = append(why, "not at a constant rate")
		case FlagWarmupAtLimit:
			why = append(why, "with its warm-up cut at its limit")
		default:
			return nil
		}
	}
	return why
}

// bounded decides inconclusive for a signal whose growth slows (FlagSlows):
// "bounded" with the level and when it is reached when the run saw it level
// off, otherwise "the growth slows" with how long a run would show where it
// levels off.
func (d *Decision) bounded(name string, f Fit, natDesc, rssDesc string) {
	d.Verdict = VerdictInconclusive
	d.Bound, d.BoundSignal = f.Bound, name
	b := f.Bound
	// The run's whole span in lifecycles, from the used span and share.
	run := f.LifecyclesUsed * float64(f.Samples) / math.Max(float64(f.SamplesUsed), 1)
	switch {
	case b != nil && b.Reached:
		d.Reason = fmt.Sprintf("bounded, not a leak: %s grows but levels off: %s (%s; %s)", name, describeBound(b, ""), natDesc, rssDesc)
		d.Settle = fmt.Sprintf("run ~%.0f more lifecycles to confirm that %s stays at its level", math.Ceil(b.ReachedAt/10)*10, name)
		d.MoreLifecycles = b.ReachedAt
	case b != nil && b.Fitted:
		d.Reason = fmt.Sprintf("inconclusive: %s grows, but its growth slows, so it may be bounded: %s (%s; %s)", name, describeBound(b, ""), natDesc, rssDesc)
		d.MoreLifecycles = math.Max(b.ReachedAt-run, f.LifecyclesUsed)
		d.Settle = fmt.Sprintf("run ~%.0f more lifecycles to see whether %s levels off", math.Ceil(d.MoreLifecycles/10)*10, name)
	default:
		d.Reason = fmt.Sprintf("inconclusive: %s grows, but its growth slows, so it may be bounded; %s (%s; %s)", name, describeBound(b, ""), natDesc, rssDesc)
		d.MoreLifecycles = run
		d.Settle = fmt.Sprintf("run ~%.0f more lifecycles (twice as long) to see whether %s levels off", math.Ceil(d.MoreLifecycles/10)*10, name)
	}
}
