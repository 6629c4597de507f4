package stats

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/units"
)

// VerdictOptions configures Decide. A zero field means its default.
type VerdictOptions struct {
	NativeFloor float64 // bytes per lifecycle below which native-heap growth is not called a leak; default DefaultNativeFloor
	RSSFloor    float64 // bytes per lifecycle below which RSS growth is not called a leak; default DefaultRSSFloor
	AlphaMK     float64 // significance level of the Mann–Kendall trend test; default 0.01
}

// The default floors, in bytes per lifecycle: the one definition every verdict
// (a run's, an early one, a re-analysis) uses unless told otherwise.
//
// Native heap: 2 KiB per lifecycle, a fifth of the smallest leak of
// KAFKA-20616 (the offsets options, ~11 KiB per lifecycle).
//
// RSS: 12 KiB per lifecycle. RSS carries the allocator's own retention,
// which depends on how many glibc arenas the process's threads touch: the
// fixed model's RSS rose 1.3 ± 0.2 KiB per lifecycle over 20 seeds with its
// store operations on one thread (make reliability), and up to 11.5 KiB per
// lifecycle when they were spread over threads on a loaded machine. The RSS
// floor only bounds what "no leak" tolerates; a leak needs the native heap
// above its floor and RSS rising (its interval above zero).
const (
	DefaultNativeFloor = 2048
	DefaultRSSFloor    = 12288
)

// DefaultVerdictOptions returns VerdictOptions{NativeFloor: DefaultNativeFloor, RSSFloor: DefaultRSSFloor, AlphaMK: 0.01}.
func DefaultVerdictOptions() VerdictOptions {
	return VerdictOptions{NativeFloor: DefaultNativeFloor, RSSFloor: DefaultRSSFloor, AlphaMK: 0.01}
}

// Verdict is the leak decision for one model.
type Verdict struct {
	Leak     *bool  // true leak, false no leak, nil inconclusive
	Reason   string // in words, naming the numbers
	Warnings []string
}

// Decide combines the native-heap and RSS fits of one model into a leak
// verdict, using the per-lifecycle estimates (interval [Low, High]):
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
func Decide(native, rss Fit, opt VerdictOptions) Verdict {
	d := DefaultVerdictOptions()
	if opt.NativeFloor == 0 {
		opt.NativeFloor = d.NativeFloor
	}
	if opt.RSSFloor == 0 {
		opt.RSSFloor = d.RSSFloor
	}
	if opt.AlphaMK == 0 {
		opt.AlphaMK = d.AlphaMK
	}
	var v Verdict
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
		invalid = append(invalid, fmt.Sprintf("native heap (%d of %d samples used)", native.Used, native.N))
	}
	if !rs.Valid {
		invalid = append(invalid, fmt.Sprintf("RSS (%d of %d samples used)", rss.Used, rss.N))
	}
	if len(invalid) > 0 {
		v.Reason = "no per-lifecycle interval for " + strings.Join(invalid, " and ") + ": cannot decide"
		v.Warnings = append(v.Warnings, v.Reason)
		return v
	}
	var steps []string
	for _, s := range []struct {
		name string
		f    Fit
	}{{"native heap", native}, {"RSS", rss}} {
		if s.f.Step != nil {
			steps = append(steps, fmt.Sprintf("%s shifts by %s at sample %d of %d", s.name, units.FormatSignedBytes(s.f.Step.Size), s.f.Step.Index, s.f.N))
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

func rssFlatWhy(rss Fit, opt VerdictOptions) string {
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

// describe renders "+11.2 KiB/lifecycle [10.9, 11.5] (95%)".
func describe(e Estimate, conf float64) string {
	if !e.Valid {
		return "(no estimate)"
	}
	s := fmt.Sprintf("%s/lifecycle [%s, %s]", units.FormatSignedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High))
	if conf > 0 {
		s += " (" + units.FormatPercent(conf) + ")"
	}
	return s
}

// Difference returns the difference a − b of the per-lifecycle slopes of two
// models measured in independent runs (e.g. leaky minus fixed), in units of
// Y per lifecycle. Its standard error is √(SEa² + SEb²), its degrees of
// freedom those of Welch–Satterthwaite, (SEa²+SEb²)² / (SEa⁴/DFa + SEb⁴/DFb),
// and its interval uses Student-t at the confidence of a (or 0.95 if unset).
// It is !Valid if either slope is.
func Difference(a, b Fit) Estimate {
	ea, eb := a.PerLifecycle, b.PerLifecycle
	if !ea.Valid || !eb.Valid || ea.DF <= 0 || eb.DF <= 0 {
		return Estimate{Value: ea.Value - eb.Value}
	}
	conf := a.Confidence
	if !(conf > 0 && conf < 1) {
		conf = 0.95
	}
	va, vb := ea.SE*ea.SE, eb.SE*eb.SE
	se := math.Sqrt(va + vb)
	df := ea.DF + eb.DF
	if va+vb > 0 {
		df = (va + vb) * (va + vb) / (va*va/ea.DF + vb*vb/eb.DF)
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + conf/2)
	d := ea.Value - eb.Value
	return Estimate{Value: d, Low: d - tq*se, High: d + tq*se, SE: se, DF: df, Valid: true}
}

// formatP renders a p-value: "p = 0.032", or "p < 0.0001".
func formatP(p float64) string {
	if p < 1e-4 {
		return "p < 0.0001"
	}
	return fmt.Sprintf("p = %.2g", p)
}
