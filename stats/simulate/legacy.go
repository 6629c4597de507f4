package simulate

import (
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/stats"
)

// The legacy rule is the verdict rocksleak used before issue 11's
// DecideSignals: kept here, and only here, because the simulations compare
// the rule in use with it (Legacy; statscheck's "legacy" columns). No run
// decides by it.

// LegacyOptions configures LegacyDecide. A zero field means its default.
type LegacyOptions struct {
	NativeFloor float64 // bytes per lifecycle below which native-heap growth is not called a leak; default stats.DefaultNativeFloor
	RSSFloor    float64 // bytes per lifecycle below which RSS growth is not called a leak; default stats.DefaultRSSFloor
	AlphaMK     float64 // significance level of the Mann–Kendall trend test; default 0.01
}

// DefaultLegacyOptions returns LegacyOptions{NativeFloor: stats.DefaultNativeFloor, RSSFloor: stats.DefaultRSSFloor, AlphaMK: 0.01}.
func DefaultLegacyOptions() LegacyOptions {
	return LegacyOptions{NativeFloor: stats.DefaultNativeFloor, RSSFloor: stats.DefaultRSSFloor, AlphaMK: 0.01}
}

// LegacyVerdict is the legacy rule's leak decision for one model.
type LegacyVerdict struct {
	Leak     *bool  // true leak, false no leak, nil inconclusive
	Reason   string // in words, naming the numbers
	Warnings []string
}

// LegacyDecide combines the native-heap and RSS fits of one model into a
// leak verdict by the legacy rule, using the per-lifecycle estimates
// (interval [Low, High]):
//
//   - Inconclusive (Leak == nil) when either estimate is not Valid (too few
//     samples, counter never varied) or either signal has a dominating level
//     shift (Fit.Step): a one-time jump is neither a per-lifecycle cost nor
//     evidence against one.
//   - Leak (true) when the native heap's Low > NativeFloor and RSS agrees:
//     its Low > 0 or its Value > RSSFloor.
//   - No leak (false) when the native heap's High < NativeFloor and RSS
//     does not rise beyond its floor: its High < RSSFloor, or its interval
//     includes 0, or its Mann–Kendall P ≥ AlphaMK.
//   - Otherwise inconclusive. The Reason then says which signal is
//     ambiguous (an interval straddling its floor: run longer) or that the
//     two signals disagree ("native heap and RSS disagree: ..."), with the
//     numbers; disagreement is never resolved silently.
//
// The Warnings of both fits are passed on, prefixed with the signal name.
func LegacyDecide(native, rss stats.Fit, opt LegacyOptions) LegacyVerdict {
	d := DefaultLegacyOptions()
	if opt.NativeFloor == 0 {
		opt.NativeFloor = d.NativeFloor
	}
	if opt.RSSFloor == 0 {
		opt.RSSFloor = d.RSSFloor
	}
	if opt.AlphaMK == 0 {
		opt.AlphaMK = d.AlphaMK
	}
	var v LegacyVerdict
	for _, w := range native.Warnings {
		v.Warnings = append(v.Warnings, "native heap: "+w)
	}
	for _, w := range rss.Warnings {
		v.Warnings = append(v.Warnings, "RSS: "+w)
	}
	yes, no := true, false
	nat, rs := native.PerLifecycle, rss.PerLifecycle
	natDesc := "native heap " + describe(nat, native.Confidence)
	rssDesc := "RSS " + describe(rs, rss.Confidence)

	var invalid []string
	if !nat.Valid {
		invalid = append(invalid, fmt.Sprintf("native heap (%d of %d samples used)", native.SamplesUsed, native.Samples))
	}
	if !rs.Valid {
		invalid = append(invalid, fmt.Sprintf("RSS (%d of %d samples used)", rss.SamplesUsed, rss.Samples))
	}
	if len(invalid) > 0 {
		v.Reason = "no per-lifecycle interval for " + strings.Join(invalid, " and ") + ": cannot decide"
		v.Warnings = append(v.Warnings, v.Reason)
		return v
	}
	var steps []string
	for _, s := range []struct {
		name string
		f    stats.Fit
	}{{"native heap", native}, {"RSS", rss}} {
		if s.f.Step != nil {
			steps = append(steps, fmt.Sprintf("%s shifts by %s at sample %d of %d", s.name, units.FormatSignedBytes(s.f.Step.Size), s.f.Step.Index, s.f.Samples))
		}
	}
	if len(steps) > 0 {
		v.Reason = strings.Join(steps, " and ") + ": a level shift dominates, which is not a per-lifecycle slope; inconclusive (" + natDesc + "; " + rssDesc + ")"
		return v
	}

	natLeak := nat.Low > opt.NativeFloor
	natNo := nat.High < opt.NativeFloor
	rssAgrees := rs.Low > 0 || rs.Value > opt.RSSFloor
	rssFlat := rs.High < opt.RSSFloor || (rs.Low <= 0 && rs.High >= 0) || rss.MannKendallP >= opt.AlphaMK
	natFloor := units.FormatBytes(opt.NativeFloor)

	switch {
	case natLeak && rssAgrees:
		v.Leak = &yes
		v.Reason = fmt.Sprintf("leak: %s above its floor %s/lifecycle, and %s agrees", natDesc, natFloor, rssDesc)
	case natNo && rssFlat:
		v.Leak = &no
		v.Reason = fmt.Sprintf("no leak: %s below its floor %s/lifecycle, and %s %s", natDesc, natFloor, rssDesc, rssFlatWhy(rss, opt))
	case natLeak: // RSS does not agree
		v.Reason = fmt.Sprintf("native heap and RSS disagree: %s is above its floor %s/lifecycle, but %s does not rise", natDesc, natFloor, rssDesc)
	case natNo: // RSS rises
		v.Reason = fmt.Sprintf("native heap and RSS disagree: %s is below its floor %s/lifecycle, but %s rises (Mann–Kendall %s): allocator retention, or warm-up not over", natDesc, natFloor, rssDesc, formatP(rss.MannKendallP))
	default:
		v.Reason = fmt.Sprintf("inconclusive: %s straddles its floor %s/lifecycle (%s); run longer for a narrower interval", natDesc, natFloor, rssDesc)
	}
	return v
}

func rssFlatWhy(rss stats.Fit, opt LegacyOptions) string {
	rs := rss.PerLifecycle
	switch {
	case rs.High < opt.RSSFloor:
		return "is below its floor " + units.FormatBytes(opt.RSSFloor) + "/lifecycle"
	case rs.Low <= 0 && rs.High >= 0:
		return "is consistent with no growth"
	default:
		return fmt.Sprintf("shows no significant trend (Mann–Kendall %s)", formatP(rss.MannKendallP))
	}
}

// describe and formatP render as stats' verdict reasons do (the legacy rule's
// reasons read as the rule in use's).
func describe(e stats.Estimate, conf float64) string { return stats.DescribeEstimate(e, conf) }

func formatP(p float64) string { return stats.FormatP(p) }
