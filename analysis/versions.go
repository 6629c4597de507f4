package analysis

import (
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// DefaultReferenceVersion is the Kafka version the versions table judges
// every other version against when the run has it: 4.3.1, the release that
// fixed KAFKA-20616.
const DefaultReferenceVersion = "4.3.1"

// VersionEvidence is what one Kafka version's row of the versions table is
// decided on: its native heap and RSS growth per lifecycle (the
// lifecycle-only fits, 95%), the controlled verdict against the reference
// version (nil for the reference itself), and the ownership ledger at the
// end.
type VersionEvidence struct {
	Native, RSS stats.Estimate
	// NativeFlags are the flags of the native heap's whole-run fit, and
	// NativeLater its fit over the run's later half (LaterHalfFits; nil when
	// not fitted): a blocking flag, or growth-slows under a rate above the
	// floor, leaves the native heap's piece unsettled unless the later half
	// settles it (nativePiece).
	NativeFlags []stats.Flag
	NativeLater *LaterHalf
	// VsReference is this version − the reference, paired at the same
	// lifecycle counts, judged with the native heap's floor as margin
	// (ControlledAgainst).
	VsReference *schema.Controlled
	// OffsetsOptionsLive is the ledger's live offsets-CF options at the end
	// (KAFKA-20616's first leak: one per opened DB while it leaks);
	// NoOffsetsCF marks a version without the offsets column family.
	OffsetsOptionsLive int64
	NoOffsetsCF        bool
}

// VersionJudgement is a row's verdict (WordLeak, WordNoLeak or
// WordInconclusive) with the evidence it rests on, one clause per piece,
// and whether RSS could settle the row at its length.
type VersionJudgement struct {
	Word     string
	Evidence []string
	// RSSUnsettled is set when the RSS interval contains its floor: RSS
	// cannot say either way at this length, so the verdict rests on the
	// native heap, the controlled verdict and the ledger.
	RSSUnsettled bool
}

// JudgeVersion decides one row of the versions table. On the JVM engine
// RSS moves by the JVM's own pages (several KiB per lifecycle in every
// version, fixed ones too), so a row whose RSS interval reaches its floor
// is not left inconclusive for that alone; RSS only vetoes: a row is not
// "no leak" when RSS lies wholly above its floor, nor "leak" when it falls
// (its interval wholly below 0; a run's own verdict needs RSS rising too).
//
// The native heap's piece follows its fit's flags as the run's own verdict
// does (stats.DecideSignals): a blocking flag (slope not constant, warm-up
// at its limit, ...) leaves it unsettled, and so does growth that slows
// under an interval above the floor (it may be bounded). Where the flags
// are only those a later half may settle (slope-not-constant,
// warmup-at-limit, growth-slows), the later half's fit (NativeLater)
// settles it when no such flag leaves the later half itself unsettled and it
// lies on the same side of the floor; the piece says so.
//
//   - leak: the native heap's interval lies above its floor, and the
//     controlled verdict against the reference (when there is one) is a leak
//     beyond that floor (its interval above the margin).
//   - no leak: the native heap's interval lies below its floor, the
//     controlled difference from the reference lies inside ± the floor
//     ("no difference"), and the ledger holds no offsets-CF options (0, or
//     no such column family).
//   - inconclusive otherwise, each failing piece said.
//
// The controlled piece says when it was withheld, and what it rests on when
// a fallback settled it (schema.Controlled.Fallback).
func JudgeVersion(e VersionEvidence, floors schema.VerdictFloors) VersionJudgement {
	var j VersionJudgement
	nf, rf := floors.NativeHeap, floors.RSS
	pos, native := nativePiece(e, nf)
	nativeAbove, nativeBelow := pos > 0, pos < 0
	j.Evidence = append(j.Evidence, native)
	refLeak, refSame := true, true
	if c := e.VsReference; c != nil {
		refLeak, refSame = c.Verdict == stats.VerdictLeak.String(), c.Verdict == stats.VerdictNoLeak.String()
		how := ""
		switch {
		case c.Withheld != "" && c.Fallback != "":
			how = " (withheld: " + c.Fallback + ")"
		case c.Withheld != "":
			how = " (withheld: " + c.Withheld + ")"
		case c.Fallback != "":
			how = ", " + c.Fallback
		}
		j.Evidence = append(j.Evidence, fmt.Sprintf("vs %s (controlled, %.0f%%) %s: %s%s", c.Control,
			100*schema.ControlledConfidence(*c), interval(c.Difference), c.Verdict, how))
	} else {
		j.Evidence = append(j.Evidence, "the reference version")
	}
	ledgerClean := e.NoOffsetsCF || e.OffsetsOptionsLive == 0
	switch {
	case e.NoOffsetsCF:
		j.Evidence = append(j.Evidence, "ledger: no offsets column family")
	default:
		j.Evidence = append(j.Evidence, fmt.Sprintf("ledger: %d offsets options live", e.OffsetsOptionsLive))
	}
	rssAbove := e.RSS.Valid && e.RSS.Low > rf
	rssBelow := e.RSS.Valid && e.RSS.High < rf
	switch {
	case rssAbove:
		j.Evidence = append(j.Evidence, "RSS "+interval(e.RSS)+" above its floor "+units.FormatBytes(rf))
	case rssBelow:
		j.Evidence = append(j.Evidence, "RSS "+interval(e.RSS)+" below its floor "+units.FormatBytes(rf))
	case nativeAbove && e.RSS.Valid && e.RSS.Low > 0:
		j.RSSUnsettled = true
		j.Evidence = append(j.Evidence, "RSS "+interval(e.RSS)+" rises, consistent with it (its interval reaches its floor "+
			units.FormatBytes(rf)+")")
	default:
		j.RSSUnsettled = true
		j.Evidence = append(j.Evidence, "RSS "+interval(e.RSS)+" cannot settle it at this length (reaches its floor "+
			units.FormatBytes(rf)+")")
	}
	switch {
	case nativeAbove && refLeak && !(e.RSS.Valid && e.RSS.High < 0):
		j.Word = WordLeak
	case nativeBelow && refSame && ledgerClean && !rssAbove:
		j.Word = WordNoLeak
	default:
		j.Word = WordInconclusive
	}
	return j
}

// String is the judgement in one line: the verdict, then its evidence.
func (j VersionJudgement) String() string {
	return j.Word + ": " + strings.Join(j.Evidence, "; ")
}

// SameSchedule reports whether two runs executed the same schedule: the same
// lifecycles and the same failed closes. Pairing two runs' samples at the
// same lifecycle counts assumes it: a 4.0-4.2 jar writes no status at close,
// so none of its closes fails and none of the restores a failed close brings
// happens, and its samples fall at other counts (4.2.2 against 4.3.1 at 800
// lifecycles shared 98 counts, 4.3.0 against 4.3.1 361, and the paired
// interval was ±24 KiB where the fits' difference was ±0.4 KiB).
func SameSchedule(a, b *schema.Run) bool {
	return a.Lifecycles == b.Lifecycles && a.FailedCloses == b.FailedCloses
}

// ControlledAgainst is the controlled verdict of run model against run
// control of r on the native heap, as Controlled judges a pair (paired when
// samples holds both runs' samples and the two ran the same schedule,
// SameSchedule; else the difference of their fits), but
// with the native heap's floor as the margin: "leak" needs the difference
// above the floor, "no difference" the whole interval inside ± the floor.
//
// When a flag saying the whole run's rate is not its rate at the end
// (fallbackFlags: slope-not-constant, warmup-at-limit) withholds that
// verdict, and samples are given, it rests on a fallback instead
// (settleWithheld: only one that is not flagged itself and whose verdict
// the whole-run interval also gives): for the difference of two fits, the
// difference of the two runs' later halves; for a paired series, its later
// half, else the difference of the two whole-run fits. Fallback says which,
// and the withheld whole-run interval; Difference and Confidence are then the
// fallback's, Basis names it. Nil when either run has no native-heap fit.
func ControlledAgainst(r *schema.Result, samples map[string][]schema.Sample, model, control string) *schema.Controlled {
	rm, rc := r.Runs[model], r.Runs[control]
	if rm == nil || rc == nil {
		return nil
	}
	fm, okm := rm.Fits[SignalNativeHeap]
	fc, okc := rc.Fits[SignalNativeHeap]
	if !okm || !okc || fm.Total == nil || fc.Total == nil {
		return nil
	}
	opt := stats.CompareOptions{Margin: r.Floors.NativeHeap}
	var c stats.Comparison
	paired, fell, basis := false, "", ""
	lifecycles := min(rm.Lifecycles, rc.Lifecycles)
	tm, tc := statsFit(*fm.Total), statsFit(*fc.Total)
	if in, cov, ok := PairedTimerInput(samples[model], samples[control], SignalNativeHeap); ok && SameSchedule(rm, rc) {
		if pc, pf, err := stats.ComparePairedCovariate(in, cov, Options(), opt); err == nil {
			c, lifecycles, paired = pc, int64(in.Lifecycles[len(in.Lifecycles)-1]), true
			c.Reason = pairedMethod + ", " + c.Reason
			c, fell, basis = settleWithheld(c, opt.Margin, onlyFallbackFlags(pairedOtherBlocking, pf), func() []fallback {
				return pairedFallbacks(in, cov, tm, tc, opt)
			})
		}
	}
	if !paired {
		c = stats.CompareFits(tm, tc, opt)
		how := "difference of the two fits, "
		if !SameSchedule(rm, rc) {
			how = "difference of the two fits (not paired: the two ran different schedules), "
		}
		c.Reason = how + c.Reason
		if samples != nil {
			c, fell, basis = settleWithheld(c, opt.Margin, onlyFallbackFlags(fitsOtherBlocking, tm, tc), func() []fallback {
				return laterHalvesFallback(samples[model], samples[control], opt)
			})
		}
	}
	reason := Describe(SignalNativeHeap).Name + ": " + strings.TrimSpace(c.Reason)
	if fell != "" {
		reason += "; " + fell
	}
	return &schema.Controlled{Model: model, Control: control, Differs: "reference version",
		Signal: SignalNativeHeap, Difference: c.Estimate, Confidence: c.Confidence, Verdict: c.Verdict.String(),
		Reason: reason, Withheld: c.Withheld, Fallback: fell, Basis: basis, Lifecycles: lifecycles}
}
