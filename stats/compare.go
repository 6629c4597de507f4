package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/units"
)

// welchDF is the Welch–Satterthwaite degrees of freedom of a difference of
// two independent estimates with standard errors sa, sb and degrees of
// freedom da, db: (sa² + sb²)² / (sa⁴/da + sb⁴/db). The dfs are those of
// the estimates' own intervals (for RegressRobust an effective sample
// size: the fixed-b equivalent df, at most m − k), not raw n − k.
// Infinite dfs contribute no term; the result is at least 1.
func welchDF(sa, da, sb, db float64) float64 {
	va, vb := sa*sa, sb*sb
	if va+vb == 0 {
		return math.Max(1, math.Min(da, db))
	}
	var den float64
	if !math.IsInf(da, 1) && da > 0 {
		den += va * va / da
	}
	if !math.IsInf(db, 1) && db > 0 {
		den += vb * vb / db
	}
	if den == 0 {
		return 1e6
	}
	return math.Max(1, (va+vb)*(va+vb)/den)
}

// effectiveDF is the degrees of freedom behind f's per-lifecycle standard
// error as an effective sample size: for a Newey–West (Bartlett) standard
// error (Fit.Bandwidth S > 0, IntervalCochraneOrcutt) the equivalent degrees
// of freedom of the Bartlett lag window, 3·Used/S, when below the DF the
// interval used (raw n − k); for RegressRobust (Bandwidth 0) its DF, the
// residual df of the whitened regression.
func effectiveDF(f Fit) float64 {
	df := f.PerLifecycle.DF
	if f.Bandwidth > 0 && f.SamplesUsed > 0 {
		df = math.Min(df, 3*float64(f.SamplesUsed)/f.Bandwidth)
	}
	return math.Max(df, 1)
}

// CompareOptions configures CompareFits. A zero field means its default.
type CompareOptions struct {
	// Margin (≥ 0, units of Y per lifecycle) is the smallest difference
	// that matters: "leak" needs the difference's lower bound above it,
	// "no difference" needs the whole interval inside (−Margin, Margin).
	// The default 0 makes "leak" a plain one-sided test of a > b, which
	// finds a difference of any size given enough lifecycles (and "no
	// difference" then never holds).
	Margin float64
	// Confidence is the two-sided level of the reported interval; each
	// one-sided test runs at (1+Confidence)/2. Default 0.95.
	Confidence float64
	// BetweenRunSD (units of Y per lifecycle, ≥ 0) is the standard
	// deviation of the true slope between independent runs of the same
	// model (seed-to-seed variation a within-run interval cannot see),
	// measured from replicate seeds. It is added in quadrature to each
	// run's SE. BetweenRunDF is its degrees of freedom (seeds − 1; default
	// 9, i.e. measured on 10 seeds).
	BetweenRunSD float64
	BetweenRunDF float64
}

// Comparison is a controlled verdict: model a against its control b
// (a model that differs by one fix, a synthetic leak against the same
// model without it, a candidate against a baseline).
type Comparison struct {
	Estimate   Estimate // a − b, per lifecycle, with its interval
	Confidence float64  // two-sided level of Estimate's interval (CompareOptions.Confidence or the method's default)
	Verdict    VerdictKind
	Reason     string // names the interval, its level and the margin; never contradicts them
	// Withheld is the blocking flag that made the verdict inconclusive
	// whatever its interval says, with the fit that carries it ("model:
	// warmup-at-limit", "paired difference: level-shift"); "" when the
	// verdict follows from the interval and the margin alone. Reason names it
	// too; a rendering that shows the verdict beside the interval must show it.
	Withheld string
}

// CompareFits returns the difference a − b of the per-lifecycle slopes of
// two independently measured runs, with standard error √(SEa² + SEb²),
// Welch–Satterthwaite degrees of freedom from the fits' effective degrees of
// freedom (effectiveDF: not raw n − k when the SE is a HAC one), and a
// Student-t interval at opt.Confidence; and a decision against opt.Margin:
//
//   - VerdictLeak when Low > Margin (a grows faster than b by more than
//     the margin: one-sided test at level (1−Confidence)/2);
//   - VerdictNoLeak when −Margin < Low and High < Margin (two one-sided
//     tests: equivalence within the margin); never with Margin 0;
//   - VerdictInconclusive otherwise, or when either estimate is !Valid or
//     either fit carries a blocking flag (see DecideSignals).
func CompareFits(a, b Fit, opt CompareOptions) Comparison {
	if opt.Confidence == 0 {
		opt.Confidence = 0.95
	}
	ea, eb := a.PerLifecycle, b.PerLifecycle
	d := Comparison{Estimate: Estimate{Value: ea.Value - eb.Value}, Confidence: opt.Confidence}
	if !ea.Valid || !eb.Valid || ea.DF <= 0 || eb.DF <= 0 {
		d.Reason = "no interval on the difference: a slope has no interval"
		return d
	}
	sa, sb, da, db := ea.SE, eb.SE, effectiveDF(a), effectiveDF(b)
	if tau := opt.BetweenRunSD; tau > 0 {
		tdf := opt.BetweenRunDF
		if tdf <= 0 {
			tdf = 9
		}
		// Each slope's variance gains τ²; its df by Welch–Satterthwaite.
		grow := func(se, df float64) (float64, float64) {
			v := se*se + tau*tau
			return math.Sqrt(v), welchDF(se, df, tau, tdf) // (se²+τ²)² / (se⁴/df + τ⁴/tdf)
		}
		sa, da = grow(sa, da)
		sb, db = grow(sb, db)
	}
	se := math.Hypot(sa, sb)
	df := welchDF(sa, da, sb, db)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + opt.Confidence/2)
	v := d.Estimate.Value
	d.Estimate = Estimate{Value: v, Low: v - tq*se, High: v + tq*se, SE: se, DF: df, Valid: true}
	if fl := blocking(a, "model"); fl != "" {
		d.Withheld, d.Reason = fl, "inconclusive: "+fl+"; "+describeDifference(d.Estimate, opt.Confidence)
		return d
	}
	if fl := blocking(b, "control"); fl != "" {
		d.Withheld, d.Reason = fl, "inconclusive: "+fl+"; "+describeDifference(d.Estimate, opt.Confidence)
		return d
	}
	d.decide(opt)
	return d
}

func describeDifference(e Estimate, confidence float64) string {
	return fmt.Sprintf("difference %s/lifecycle [%s, %s] (%s)", units.FormatSignedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High), units.FormatPercent(confidence))
}

// IntervalVerdict is the verdict CompareFits draws from a difference's
// interval e against margin alone, whatever flag withheld it: VerdictLeak
// when e.Low > margin, VerdictNoLeak when the interval lies inside ± margin
// (margin > 0), VerdictInconclusive otherwise or when e is !Valid. A
// verdict resting on other evidence for a withheld comparison
// (analysis.ControlledAgainst) must agree with it, so that it never
// contradicts the interval shown beside it.
func IntervalVerdict(e Estimate, margin float64) VerdictKind {
	switch {
	case !e.Valid:
		return VerdictInconclusive
	case e.Low > margin:
		return VerdictLeak
	case margin > 0 && e.Low > -margin && e.High < margin:
		return VerdictNoLeak
	}
	return VerdictInconclusive
}

// decide sets d's Verdict and Reason from its Estimate against opt.Margin
// (the rules of CompareFits).
func (d *Comparison) decide(opt CompareOptions) {
	desc := describeDifference(d.Estimate, opt.Confidence)
	m := opt.Margin
	d.Verdict = IntervalVerdict(d.Estimate, m)
	switch {
	case d.Estimate.Low > m:
		d.Reason = fmt.Sprintf("leak against the control: %s lies above %s/lifecycle", desc, units.FormatBytes(m))
	case m > 0 && d.Estimate.Low > -m && d.Estimate.High < m:
		d.Reason = fmt.Sprintf("no difference from the control: %s lies within ±%s/lifecycle", desc, units.FormatBytes(m))
	case d.Estimate.High < -m:
		// Not a leak, and not "no difference" either: the model grows less than the control.
		d.Reason = fmt.Sprintf("inconclusive against the control: %s lies below %s/lifecycle: the model grows less than the control",
			desc, units.FormatSignedBytes(-m))
	default:
		d.Reason = fmt.Sprintf("inconclusive against the control: %s includes %s/lifecycle", desc, units.FormatBytes(m))
	}
}

// pairedBlocking are the flags of the paired difference's fit that withhold
// a paired verdict: too few samples, a warm-up cut at its limit (the
// difference may still be settling), a dominating level shift. A slope that
// wanders within the run, or residuals the fit's error model does not
// capture, do not: the batch-means standard error counts them.
var pairedBlocking = []Flag{FlagTooFew, FlagWarmupAtLimit, FlagStep}

// PairedConfidence is ComparePaired's default two-sided level: "leak"
// needs the 99% interval's lower bound above the margin, a one-sided test at
// 0.5%. The level follows from the controlled verdict's goal of no false
// call among ten A/A pairs: that holds in 95% of such runs when each pair's
// rate is at most 1 − 0.95^(1/10) ≈ 0.51%. At 95% (2.5% a side) one false
// call or more among ten comes in about one run in five, as one real run of
// ten pairs showed (README, "Controlled verdict"). The price is lifecycles:
// the batch-means interval's t quantile with 7 df grows from 2.36 to 3.50,
// so a difference is called only at 1.48 times as many standard errors
// from the margin, and takes longer runs to find.
const PairedConfidence = 0.99

// TInterval is the symmetric Student-t interval Value ± t·SE with e.DF
// degrees of freedom at two-sided level confidence: e's interval at
// another level, for estimates whose interval is of that form (batch
// means, ComparePaired, CompareFits, Interaction), not for RegressRobust's
// union over its error-model region. ok is false when e has no interval.
func (e Estimate) TInterval(confidence float64) (low, high float64, ok bool) {
	if !e.Valid || !(e.DF > 0) || !(confidence > 0 && confidence < 1) {
		return 0, 0, false
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.DF}.Quantile(0.5 + confidence/2)
	return e.Value - tq*e.SE, e.Value + tq*e.SE, true
}

// ComparePaired is the controlled verdict on a paired difference: in is the
// series model − control, the two runs sampled at the same lifecycle counts
// (the same scenario, seed and schedule in two processes of one run), on
// lifecycles. Whatever both runs share (the control's own warm-up, a growth
// that levels off, the workload's rate changes) cancels in the series, so
// neither run's own flags matter; only the difference's can.
//
// The series is fitted by FitSignal with fitOpt (for its warm-up cut and
// flags; the fit is returned), and the estimate is BatchMeansSlope over the
// used samples (after the warm-up cut) in DefaultBatches batches: the mean
// of the batch slopes, SE = SD/√k, k − 1 df. Batch means, not the fit's own
// interval: on real calibration pairs the difference's slope wanders within a
// run and its noise changes between quiet and busy periods, which the fit's
// error model missed (its 95% interval covered the known leak at 4 of 10 seeds
// at 2,048 lifecycles; scripts/statscheck). opt.BetweenRunSD, when set, adds
// √2·τ in quadrature (both slopes vary by τ between runs). The decision
// against opt.Margin is that of CompareFits; a blocking flag of the fit
// (pairedBlocking) makes it inconclusive.
//
// The default level is PairedConfidence (99%), not CompareFits' 95%.
//
// It needs the two runs to share a schedule: it is valid for runs of the same
// scenario and seed, not for runs of different seeds (use CompareFits with
// BetweenRunSD there).
func ComparePaired(in Input, fitOpt Options, opt CompareOptions) (Comparison, Fit, error) {
	return comparePairedBy(in, fitOpt, opt, BatchMeansSlope)
}

// comparePairedBy is ComparePaired with the slope's estimator est (called
// with the used samples, DefaultBatches and the level) in place of
// BatchMeansSlope; est returns a Student-t estimate (Value, SE, DF).
func comparePairedBy(in Input, fitOpt Options, opt CompareOptions, est func(Input, int, float64) Estimate) (Comparison, Fit, error) {
	if opt.Confidence == 0 {
		opt.Confidence = PairedConfidence
	}
	f, err := FitSignal(in, fitOpt)
	if err != nil {
		return Comparison{Reason: "no paired difference: " + err.Error()}, f, err
	}
	used := Input{Y: in.Y[f.WarmupSamples:], Lifecycles: in.Lifecycles[f.WarmupSamples:], Unit: in.Unit}
	e := est(used, DefaultBatches, opt.Confidence)
	d := Comparison{Estimate: Estimate{Value: e.Value}, Confidence: opt.Confidence}
	if !e.Valid {
		d.Estimate.Value = f.PerLifecycle.Value
		d.Reason = fmt.Sprintf("no interval on the paired difference (%d of %d samples used; batch means need %d)", f.SamplesUsed, f.Samples, 3*DefaultBatches)
		return d, f, nil
	}
	se, df := e.SE, e.DF
	if tau := opt.BetweenRunSD; tau > 0 {
		tdf := opt.BetweenRunDF
		if tdf <= 0 {
			tdf = 9
		}
		t2 := math.Sqrt2 * tau
		se, df = math.Hypot(se, t2), welchDF(se, df, t2, tdf)
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + opt.Confidence/2)
	d.Estimate = Estimate{Value: e.Value, Low: e.Value - tq*se, High: e.Value + tq*se, SE: se, DF: df, Valid: true}
	for _, k := range pairedBlocking {
		if f.HasFlag(k) {
			d.Withheld = "paired difference: " + string(k)
			d.Reason = "inconclusive: " + d.Withheld + "; " + describeDifference(d.Estimate, opt.Confidence)
			return d, f, nil
		}
	}
	d.decide(opt)
	return d, f, nil
}

// Interaction returns the interaction term of a 2×2 attribution,
// (a11 − a10) − (a01 − a00): e.g. with aᵢⱼ the slope of the model with fix i
// and fix j applied, how far the two fixes' effects fail to add up. The four
// estimates come from independent runs; its standard error is the root sum
// of their squared SEs, its df Welch–Satterthwaite over the four
// (Σvᵢ)² / Σ(vᵢ²/dfᵢ), and its interval Student-t at confidence. It is
// !Valid when any estimate is.
func Interaction(a11, a10, a01, a00 Estimate, confidence float64) Estimate {
	v := (a11.Value - a10.Value) - (a01.Value - a00.Value)
	es := []Estimate{a11, a10, a01, a00}
	var sv, den float64
	for _, e := range es {
		if !e.Valid || e.DF <= 0 {
			return Estimate{Value: v}
		}
		vi := e.SE * e.SE
		sv += vi
		if !math.IsInf(e.DF, 1) {
			den += vi * vi / e.DF
		}
	}
	if !(confidence > 0 && confidence < 1) {
		confidence = 0.95
	}
	df := 1e6
	if den > 0 {
		df = math.Max(1, sv*sv/den)
	}
	se := math.Sqrt(sv)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + confidence/2)
	return Estimate{Value: v, Low: v - tq*se, High: v + tq*se, SE: se, DF: df, Valid: true}
}
