package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Input is one signal of one model, in sample order. All non-nil slices
// have the same length n. The X counters are cumulative (non-decreasing)
// event counts at the time of each sample; FailedCloses and Records may be
// nil, meaning "not counted" (their slopes are then !Valid without a
// warning; all-zero counters give a warning).
type Input struct {
	Y            []float64 // the signal: bytes (or a count, e.g. open FDs)
	Lifecycles   []float64 // cumulative store lifecycles (one store or segment opened and closed)
	FailedCloses []float64 // cumulative failed closes
	Records      []float64 // cumulative records written
	// RestoredRecords, when not nil, is the cumulative count of changelog
	// records replayed by restores: a regressor of the lifecycle fits
	// (Y ~ 1 + Lifecycles [+ FailedCloses] + RestoredRecords), so that
	// PerLifecycle is the growth per lifecycle at a given amount of restore
	// work and the restores' own share (their replay, and the segment
	// lifecycles it drives at a cost unlike the ordinary ones') is
	// PerRestoredRecord. It enters only when it varies over the used
	// samples.
	RestoredRecords []float64
	// Unit names Y's unit in Warnings: "" or "B" for bytes (shown scaled
	// by 1024: KiB, MiB), anything else verbatim, e.g. "FDs".
	Unit string
}

// Options configures FitSignal. A zero field means its default.
type Options struct {
	Confidence        float64 // two-sided confidence level of intervals, in (0, 1); default 0.95
	MinSamples        int     // minimum samples after warm-up for a confidence interval; default 20
	MaxWarmupFraction float64 // the warm-up cut may remove at most this share of samples, below 1; default 0.5; negative: no cut
	// Interval selects the interval method; the zero value is the original
	// IntervalCochraneOrcutt, IntervalRobust the one measured to hold on
	// autocorrelated and random-walk series (see RegressRobust), and
	// IntervalRobustBatch that one widened where a batch-means interval of
	// the same estimate is wider (see RegressRobustBatch; the tool's for
	// RSS: analysis.OptionsFor).
	Interval IntervalMethod
	// LongWarmupShare, when positive, runs the growth-slows test (FlagSlows)
	// over all samples as well as over the used ones once the warm-up cut
	// takes this share of the samples or more (the tool's for the native
	// heap: analysis.OptionsFor). Growth levelling off over the run is cut
	// long, because its steep start does not fit the line through the
	// rest, and the flatter rest may not show the bend; a leak's warm-up is
	// short. 0: the used samples only.
	LongWarmupShare float64
}

// DefaultOptions returns Options{Confidence: 0.95, MinSamples: 20, MaxWarmupFraction: 0.5}.
func DefaultOptions() Options {
	return Options{Confidence: 0.95, MinSamples: 20, MaxWarmupFraction: 0.5}
}

func (o Options) withDefaults() (Options, error) {
	d := DefaultOptions()
	if o.Confidence == 0 {
		o.Confidence = d.Confidence
	}
	if o.MinSamples == 0 {
		o.MinSamples = d.MinSamples
	}
	switch {
	case o.MaxWarmupFraction == 0:
		o.MaxWarmupFraction = d.MaxWarmupFraction
	case o.MaxWarmupFraction < 0:
		o.MaxWarmupFraction = 0 // no cut
	}
	switch {
	case !(o.Confidence > 0 && o.Confidence < 1):
		return o, fmt.Errorf("stats: Confidence %v not in (0, 1)", o.Confidence)
	case o.MinSamples < 0:
		return o, fmt.Errorf("stats: MinSamples %d is negative", o.MinSamples)
	case !(o.MaxWarmupFraction < 1):
		return o, fmt.Errorf("stats: MaxWarmupFraction %v is not below 1", o.MaxWarmupFraction)
	}
	return o, nil
}

// Estimate is a point estimate with a two-sided confidence interval. When
// Valid is false the other fields are zero or a point estimate without an
// interval, and must not be used for a decision. No field is ever NaN or
// infinite, so an Estimate encodes as JSON.
//
// The JSON tags are result.json's (package schema stores estimates as they are).
type Estimate struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`  // confidence interval (HAC / autocorrelation-honest)
	High  float64 `json:"high"` // confidence interval (HAC / autocorrelation-honest)
	SE    float64 `json:"se"`
	DF    float64 `json:"df"`    // Student-t degrees of freedom behind Low and High
	Valid bool    `json:"valid"` // false when it could not be estimated (e.g. counter never varied, too few samples)
}

// StepInfo describes a level shift: Y jumps by Size (units of Y) between
// sample Index−1 and sample Index (indices into Input, not after the cut).
type StepInfo struct {
	Index int     `json:"index"`
	Size  float64 `json:"size"`
}

// Fit is the analysis of one signal. All slopes are in units of Y per unit
// of their counter (bytes per lifecycle, bytes per failed close, bytes per
// million records). No field is NaN or infinite.
//
// Its JSON is a fit in result.json (schema.SignalFit embeds it): the field
// order is the file's.
type Fit struct {
	PerLifecycle      Estimate `json:"per_lifecycle"`       // d Y / d lifecycle, from the multiple regression Y ~ 1 + Lifecycles + FailedCloses
	PerFailedClose    Estimate `json:"per_failed_close"`    // d Y / d failed close, same regression; !Valid (and Y ~ 1 + Lifecycles fitted) when FailedCloses does not vary after the cut
	PerMillionRecords Estimate `json:"per_million_records"` // from Y ~ 1 + Records, scaled to per 10⁶ records
	// PerRestoredRecord is d Y / d restored record in the lifecycle
	// regression; nil when Input.RestoredRecords is nil or does not vary
	// over the used samples (it is then not in the regression), or when it
	// could not be estimated.
	PerRestoredRecord *Estimate `json:"per_restored_record,omitempty"`
	R2                float64   `json:"r2"` // of the lifecycle regression (plain OLS) on the used samples
	// Samples and SamplesUsed are the samples given and used after the
	// warm-up cut.
	Samples     int `json:"samples"`
	SamplesUsed int `json:"samples_used"`
	// WarmupSamples are the samples cut from the start; WarmupReason says,
	// in words, how the cut was found, or "no warm-up detected".
	WarmupSamples int    `json:"warmup_samples"`
	WarmupReason  string `json:"warmup_reason"`
	// WarmupEndLifecycles is Input.Lifecycles at the first used sample (0
	// when none is used).
	WarmupEndLifecycles float64   `json:"warmup_end_lifecycles"`
	Step                *StepInfo `json:"step,omitempty"`
	// TheilSen is the robust slope of Y vs Lifecycles on the used samples
	// (of Y − PerFailedClose·FailedCloses when failed closes were fitted),
	// 0 if not computable.
	TheilSen float64 `json:"theil_sen"`
	// MannKendallZ and MannKendallP are the Mann–Kendall trend test on the
	// used samples in sample order, corrected for autocorrelation
	// (MannKendallCorrected: Hamed–Rao / AR(1) variance inflation); P is
	// two-sided.
	MannKendallZ float64 `json:"mann_kendall_z"`
	MannKendallP float64 `json:"mann_kendall_p"`
	// Lag1 is the lag-1 autocorrelation of the lifecycle regression's OLS
	// residuals (the ρ of the Cochrane–Orcutt step, see Regress; with
	// IntervalRobust the φ̂ of RegressRobust); Bandwidth is the Newey–West
	// bandwidth in samples (0 with IntervalRobust; not written).
	Lag1      float64 `json:"lag1_autocorrelation"`
	Bandwidth float64 `json:"-"`
	// Confidence is the level of every interval in the Fit.
	Confidence float64 `json:"confidence"`
	// Intercept places the fitted line: Y ≈ Intercept + PerLifecycle·L +
	// PerFailedClose·F over the used samples (the line through their
	// centroid; with PerRestoredRecord, at the used samples' mean restored
	// records).
	Intercept float64 `json:"intercept"`
	// Warnings are never nil (an empty list when there are none).
	Warnings []string `json:"warnings"`
	// Flags are the machine-readable kinds of the Warnings that undermine
	// the per-lifecycle fit (DecideSignals makes a verdict inconclusive on
	// them), one per kind, in the order raised.
	Flags []Flag `json:"flags,omitempty"`
	// LifecyclesUsed is the span of Lifecycles over the used samples (last
	// minus first): how much information the slope rests on.
	LifecyclesUsed float64 `json:"lifecycles_used,omitempty"`
	// Halves are the per-lifecycle slopes of the first and second half of
	// the used samples, set only with FlagSlopeNotConstant or
	// FlagWarmupAtLimit: a rise that is significant in both halves is a
	// rise, whatever its rate and however early its warm-up ended.
	Halves []Estimate `json:"halves,omitempty"`
	// CurvatureRates are the growth rates per lifecycle at the first and
	// the last used sample implied by the curvature test's quadratic
	// (slows), set whenever that test ran, flagged or not; nil otherwise.
	CurvatureRates []float64 `json:"curvature_rates,omitempty"`
	// Bound is the exponential approach fitted to all samples when the
	// growth slows (FlagSlows); nil otherwise.
	Bound *Bound `json:"bound,omitempty"`
}

// FitSignal estimates the per-lifecycle (and per-failed-close, per-record)
// growth of in.Y after cutting its warm-up.
//
// Steps, in order:
//
//  1. Level shift: on batch means of the whole series, the best single step
//     (Y ~ 1 + L + 1[t ≥ k]) is compared with a straight line and with the
//     best continuous bend (Y ~ 1 + L + (L − L_k)₊). A step "dominates" when
//     it leaves at most a quarter of the squared residuals of either and is
//     larger than the slope's growth over the whole run. If it does, and
//     lies beyond the first quarter of the run, Step is set, a warning says
//     so, and no warm-up is cut (a step is not a warm-up). An earlier jump
//     is treated as warm-up.
//  2. Warm-up: Y ~ 1 + Lifecycles (+ FailedCloses, RestoredRecords) is fitted by OLS to the
//     last half of the samples and extrapolated to all of them; MSER-5 on the
//     residuals proposes a cut of at most MaxWarmupFraction·n. A straight
//     line leaves flat residuals (cut ≈ 0); a rise that levels off, or a
//     transient peak that falls back, leaves a deviation at the start. The
//     proposal is trimmed back to the last 5-sample batch deviating from
//     the tail fit by more than 4 standard deviations (MSER overshoots on
//     autocorrelated noise), and kept only if the cut samples differ
//     significantly (p < 0.001, see warmupSignificance: measured against
//     the error model of the samples after the cut, so that a random
//     walk's wander is not taken for warm-up) from the line through the
//     rest; otherwise nothing is cut.
//  3. On the used samples: Regress (one-step Cochrane–Orcutt feasible GLS +
//     Newey–West, Student-t intervals) or, with Options.Interval =
//     IntervalRobust, RegressRobust (GLS under an AR(1) + random walk error
//     model; with IntervalRobustBatch, RegressRobustBatch: the wider of that
//     interval and a batch-means one) of Y ~ 1 + Lifecycles + FailedCloses
//     (+ RestoredRecords when given and varying) and of
//     Y ~ 1 + Records; Theil–Sen of Y on Lifecycles; Mann–Kendall corrected
//     for autocorrelation (MannKendallCorrected); and checks that become
//     Warnings (too few samples, slope differing between the halves of the
//     used samples, Theil–Sen outside the interval, near-unit-root
//     residuals).
//
// FitSignal returns an error only for malformed input: unequal lengths,
// NaN or infinite values, a missing Y or Lifecycles, or invalid Options.
// Statistical trouble (too few samples, a counter that never varies) is
// reported in Warnings with !Valid estimates.
func FitSignal(in Input, opt Options) (Fit, error) {
	f, err := fitSignal(in, opt)
	if err != nil {
		return f, err
	}
	f.placeLine(in)
	return f, nil
}

// placeLine sets what places the fit in in's samples: WarmupEndLifecycles,
// the Intercept of the fitted line through the centroid of the used
// samples, and Warnings as an empty list when there are none.
func (f *Fit) placeLine(in Input) {
	if f.Warnings == nil {
		f.Warnings = []string{}
	}
	if f.WarmupSamples < len(in.Lifecycles) {
		f.WarmupEndLifecycles = in.Lifecycles[f.WarmupSamples]
	}
	var sum float64
	n := 0
	for i := f.WarmupSamples; i < len(in.Y); i++ {
		sum += in.Y[i] - f.PerLifecycle.Value*in.Lifecycles[i]
		if in.FailedCloses != nil && f.PerFailedClose.Valid {
			sum -= f.PerFailedClose.Value * in.FailedCloses[i]
		}
		n++
	}
	if n > 0 {
		f.Intercept = sum / float64(n)
	}
}

// fitSignal is FitSignal's analysis, its steps in the order FitSignal lists
// them; a fitter carries what one step hands the next.
func fitSignal(in Input, opt Options) (Fit, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return Fit{}, err
	}
	ft, err := newFitter(in, opt)
	if err != nil {
		return Fit{}, err
	}
	ft.cutWarmup()
	ft.regressLifecycles()
	ft.regressRecords()
	if ft.enough && ft.f.PerLifecycle.Valid {
		ft.crossCheck()
		ft.levellingOff()
	}
	return ft.f, nil
}

// regressOrOLS runs Regress, or with too few samples for an interval a
// plain OLS fit wrapped as a Regression without intervals.
func regressOrOLS(y []float64, opt Options, enough bool, cols ...[]float64) (Regression, error) {
	X := design(cols...)
	if enough {
		if r, err := regressBy(opt.Interval, X, y, opt.Confidence); err == nil || errors.Is(err, ErrSingular) {
			return r, err
		}
	}
	o, err := OLS(X, y)
	if err != nil {
		return Regression{}, err
	}
	return Regression{Coef: o.Coef, OLS: o}, nil
}

func estimate(r Regression, j int, scale float64, valid bool) Estimate {
	if !valid || r.SE == nil {
		return Estimate{Value: r.Coef[j] * scale}
	}
	return Estimate{
		Value: r.Coef[j] * scale, Low: r.Low[j] * scale, High: r.High[j] * scale,
		SE: r.SE[j] * scale, DF: r.DFOf(j), Valid: true,
	}
}

func varies(x []float64) bool {
	for _, v := range x[min(1, len(x)):] {
		if v != x[0] {
			return true
		}
	}
	return false
}

// halvesDiffer compares the per-lifecycle slopes of the two halves of the
// used samples and describes a significant (|z| > 3) difference; it returns
// the two halves' slope estimates (first, second) whenever both halves can
// be fitted, and a description only when they differ. RR, when not nil, is
// the RestoredRecords regressor of the fit, kept in each half where it
// varies there.
func halvesDiffer(y, L, RR []float64, opt Options, unit string) (string, []Estimate) {
	h := len(y) / 2
	if h < max(opt.MinSamples, 10) || !varies(L[:h]) || !varies(L[h:]) {
		return "", nil
	}
	half := func(lo, hi int) *mat.Dense {
		if RR != nil && varies(RR[lo:hi]) {
			return design(L[lo:hi], RR[lo:hi])
		}
		return design(L[lo:hi])
	}
	m := diagnosticInterval(opt.Interval)
	a, err1 := regressBy(m, half(0, h), y[:h], opt.Confidence)
	b, err2 := regressBy(m, half(h, len(y)), y[h:], opt.Confidence)
	if err1 != nil || err2 != nil {
		return "", nil
	}
	d := a.Coef[1] - b.Coef[1]
	se := math.Hypot(a.SE[1], b.SE[1])
	z := 3.0
	if opt.Interval != IntervalCochraneOrcutt {
		// The same 3-sd rule on the fixed-b scale: Student-t with the
		// Welch–Satterthwaite df of the two halves, at the tail of 3 sd.
		df := welchDF(a.SE[1], a.DFOf(1), b.SE[1], b.DFOf(1))
		z = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(distuv.UnitNormal.CDF(3))
	}
	halves := []Estimate{estimate(a, 1, 1, true), estimate(b, 1, 1, true)}
	if se == 0 || math.Abs(d) <= z*se {
		return "", halves
	}
	return fmt.Sprintf("the slope is not constant: %s/lifecycle [%s, %s] in the first half of the used samples, %s/lifecycle [%s, %s] in the second; warm-up may not be over, or growth is not linear",
		formatSignedQty(a.Coef[1], unit), formatQty(a.Low[1], unit), formatQty(a.High[1], unit),
		formatSignedQty(b.Coef[1], unit), formatQty(b.Low[1], unit), formatQty(b.High[1], unit)), halves
}

// diagnosticInterval is the interval method of the fit's diagnostic tests
// (the halves' slopes, the bend of growth that slows): m, except that the
// calibrated interval's tests use RegressRobust's, against which their
// thresholds were set. With the batch-means interval the halves of a real
// 64 KiB/lifecycle synthetic leak (calibration scenario) differed by 0.1%
// "significantly" and the leak was left inconclusive
// (TestCalibrationRecoversKnownLeak in cmd/rocksleak).
func diagnosticInterval(m IntervalMethod) IntervalMethod {
	if m == IntervalCalibrated {
		return IntervalRobust
	}
	return m
}

// regressBy runs the regression of the chosen interval method.
func regressBy(m IntervalMethod, X *mat.Dense, y []float64, conf float64) (Regression, error) {
	switch m {
	case IntervalRobust:
		return RegressRobust(X, y, conf)
	case IntervalRobustBatch:
		return RegressRobustBatch(X, y, conf)
	case IntervalCalibrated:
		return RegressCalibrated(X, y, conf)
	}
	return Regress(X, y, conf)
}
