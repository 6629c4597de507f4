package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// fallbackFlags are the blocking flags a withheld controlled verdict of the
// versions table may be settled past (settleWithheld): both say the whole
// run's rate is not the run's rate at its end, growth that slows
// (slope-not-constant: the two halves of the used samples differ in slope)
// or a warm-up that may not be over (warmup-at-limit), which a fit over the
// run's later half does not carry into its interval. Not a random walk the
// interval does not model, a level shift or too few samples: a later half
// has those as much as the whole run.
var fallbackFlags = []stats.Flag{stats.FlagSlopeNotConstant, stats.FlagWarmupAtLimit}

// The blocking flags, other than fallbackFlags, that leave a withheld
// comparison withheld: of the difference of two fits (stats.CompareFits) and
// of a paired series (stats.ComparePaired, where a random walk is not
// blocking: its batch means count it).
var (
	fitsOtherBlocking   = []stats.Flag{stats.FlagTooFew, stats.FlagRandomWalk, stats.FlagStep}
	pairedOtherBlocking = []stats.Flag{stats.FlagTooFew, stats.FlagStep}
)

// onlyFallbackFlags reports whether the fits carry at least one of
// fallbackFlags and none of others.
func onlyFallbackFlags(others []stats.Flag, fits ...stats.Fit) bool {
	seen := false
	for _, f := range fits {
		for _, k := range others {
			if f.HasFlag(k) {
				return false
			}
		}
		for _, k := range fallbackFlags {
			seen = seen || f.HasFlag(k)
		}
	}
	return seen
}

// fallback is one piece of evidence a withheld comparison may rest on
// instead: its comparison and what it is, in words.
type fallback struct {
	c          stats.Comparison
	how, basis string // basis: how in a few words, for a table's cell
}

// settleWithheld settles the whole-run comparison whole of model against
// control when a flag withheld it (whole.Withheld) and the fits it came
// from carry no blocking flag but fallbackFlags (settle: onlyFallbackFlags
// of them), on the first of tries whose own verdict is not withheld and
// that agrees with stats.IntervalVerdict of the whole-run interval: "leak"
// or "no leak" only when both intervals say so, so the verdict contradicts
// neither. The
// returned comparison is the fallback's (its interval, level and verdict),
// with Withheld empty; fell says what it rests on and the whole-run
// interval it stands in for, basis the same in a few words. Otherwise
// whole is returned, and fell says why no fallback settled it ("" when
// none was tried).
func settleWithheld(whole stats.Comparison, margin float64, settle bool, tries func() []fallback) (c stats.Comparison, fell, basis string) {
	if whole.Withheld == "" || !settle {
		return whole, "", ""
	}
	want := stats.IntervalVerdict(whole.Estimate, margin)
	wholeDesc := fmt.Sprintf("the whole-run difference %s (%.0f%%) withheld (%s)", interval(whole.Estimate),
		100*whole.Confidence, whole.Withheld)
	if want == stats.VerdictInconclusive {
		return whole, wholeDesc + " and not settled by its interval either: no fallback", ""
	}
	var why []string
	for _, t := range tries() {
		switch got := t.c.Verdict; {
		case t.c.Withheld != "":
			why = append(why, t.how+" withheld too ("+t.c.Withheld+")")
		case got != want:
			why = append(why, fmt.Sprintf("%s %s (%.0f%%): %s, where the whole run's interval says %s", t.how,
				interval(t.c.Estimate), 100*t.c.Confidence, got, want))
		default:
			return t.c, fmt.Sprintf("on %s, %s", t.how, wholeDesc), t.basis
		}
	}
	if len(why) == 0 {
		return whole, wholeDesc + "; no fallback could be fitted", ""
	}
	return whole, wholeDesc + "; not settled: " + strings.Join(why, "; "), ""
}

// interval is e as "+v [low, high]", or "(no interval)".
func interval(e stats.Estimate) string {
	if !e.Valid {
		return "(no interval)"
	}
	q := units.FormatSignedBytes
	return fmt.Sprintf("%s [%s, %s]", q(e.Value), q(e.Low), q(e.High))
}

// laterHalvesFallback is the difference of the two runs' native-heap fits
// over their later halves (LaterHalfFits, each fitted as the whole run is),
// compared as CompareFits compares the whole runs' fits; none when either
// later half cannot be fitted.
func laterHalvesFallback(model, control []schema.Sample, opt stats.CompareOptions) []fallback {
	lm, fromM, errM := LaterHalfFits(model, SignalNativeHeap)
	lc, fromC, errC := LaterHalfFits(control, SignalNativeHeap)
	fm, okm := lm[SignalNativeHeap]
	fc, okc := lc[SignalNativeHeap]
	if errM != nil || errC != nil || !okm || !okc || fm.Total == nil || fc.Total == nil {
		return nil
	}
	c := stats.CompareFits(statsFit(*fm.Total), statsFit(*fc.Total), opt)
	return []fallback{{c, fmt.Sprintf("the difference of the two runs' later halves (lifecycle %d and %d on)", fromM, fromC), "later halves"}}
}

// pairedFallbacks are, in order, the later half (by index) of the paired
// series in and its covariate cov, judged as ControlledAgainst judges the
// whole series, and the difference of the two runs' whole-run fits fm and
// fc (unpaired, so its interval is the wider one).
func pairedFallbacks(in stats.Input, cov []float64, fm, fc stats.Fit, opt stats.CompareOptions) []fallback {
	var out []fallback
	h := len(in.Y) / 2
	later := stats.Input{Y: in.Y[h:], Lifecycles: in.Lifecycles[h:], Unit: in.Unit}
	if c, _, err := stats.ComparePairedCovariate(later, cov[h:], Options(), opt); err == nil {
		out = append(out, fallback{c, fmt.Sprintf("the later half of the paired series (lifecycle %.0f on)", later.Lifecycles[0]), "paired later half"})
	}
	return append(out, fallback{stats.CompareFits(fm, fc, opt), "the difference of the two whole-run fits", "whole-run fits"})
}

// LaterHalf is a fit over a run's later half (LaterHalfFits) and the
// lifecycle count it starts at.
type LaterHalf struct {
	From int64
	Fit  stats.Fit
}

// side is where e's interval lies against floor: +1 above, −1 below, 0
// reaching it or without an interval.
func side(e stats.Estimate, floor float64) int {
	switch {
	case e.Valid && e.Low > floor:
		return 1
	case e.Valid && e.High < floor:
		return -1
	}
	return 0
}

// nativeBlocking is the first flag of fs that leaves a native-heap interval
// on side pos unsettled: a blocking flag of stats.DecideSignals, or
// growth-slows under an interval above the floor (pos > 0); "" for none.
func nativeBlocking(fs []stats.Flag, pos int) stats.Flag {
	f := stats.Fit{Flags: fs}
	for _, k := range append([]stats.Flag{stats.FlagTooFew}, append(fallbackFlags, stats.FlagRandomWalk, stats.FlagStep)...) {
		if f.HasFlag(k) {
			return k
		}
	}
	if pos > 0 && f.HasFlag(stats.FlagSlows) {
		return stats.FlagSlows
	}
	return ""
}

// nativePiece is the native heap's piece of JudgeVersion: the side of the
// floor nf its interval settles on (0: not settled) and its evidence.
func nativePiece(e VersionEvidence, nf float64) (int, string) {
	pos := side(e.Native, nf)
	where := map[int]string{1: " above its floor ", -1: " below its floor ", 0: " reaches its floor "}
	text := "native heap " + interval(e.Native) + where[pos] + units.FormatBytes(nf)
	if !e.Native.Valid {
		return 0, "native heap not fitted"
	}
	flag := nativeBlocking(e.NativeFlags, pos)
	if flag == "" || pos == 0 {
		return pos, text
	}
	settlable := !slices.ContainsFunc(fitsOtherBlocking, func(k stats.Flag) bool { return slices.Contains(e.NativeFlags, k) })
	if l := e.NativeLater; settlable && l != nil {
		lp := side(l.Fit.PerLifecycle, nf)
		later := fmt.Sprintf("its later half (lifecycle %d on) %s%sit", l.From, interval(l.Fit.PerLifecycle),
			map[int]string{1: " above ", -1: " below ", 0: " reaches "}[lp])
		switch lf := nativeBlocking(l.Fit.Flags, lp); {
		case lf == "" && lp == pos:
			return pos, fmt.Sprintf("%s (the whole run's fit flagged %s; %s too)", text, flag, later)
		case lf != "":
			return 0, fmt.Sprintf("%s, not settled: the whole run's fit flagged %s, %s but is flagged %s", text, flag, later, lf)
		default:
			return 0, fmt.Sprintf("%s, not settled: the whole run's fit flagged %s, %s", text, flag, later)
		}
	}
	return 0, fmt.Sprintf("%s, not settled: the whole run's fit flagged %s", text, flag)
}
