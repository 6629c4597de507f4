package stats

import (
	"errors"
	"fmt"
	"math"
)

// fitter is one FitSignal call's state: its input and options, the series
// with nil counters as zeros (fails, recs, restored), the fit being filled,
// and, once the warm-up is cut, the used samples (y, L, F, R, RR from cut
// on), whether restored records are a regressor and whether there are
// enough samples for an interval.
type fitter struct {
	in                    Input
	opt                   Options
	n, cut                int
	fails, recs, restored []float64
	y, L, F, R, RR        []float64
	useRR, enough         bool
	f                     Fit
}

func (ft *fitter) warn(format string, args ...any) {
	ft.f.Warnings = append(ft.f.Warnings, fmt.Sprintf(format, args...))
}
func (ft *fitter) flag(k Flag)             { ft.f.Flags = addFlag(ft.f.Flags, k) }
func (ft *fitter) qty(v float64) string    { return formatQty(v, ft.in.Unit) }
func (ft *fitter) signed(v float64) string { return formatSignedQty(v, ft.in.Unit) }

// newFitter checks in (FitSignal's errors) and fills the missing counters with zeros.
func newFitter(in Input, opt Options) (*fitter, error) {
	n := len(in.Y)
	if n == 0 || len(in.Lifecycles) == 0 {
		return nil, errors.New("stats: FitSignal: Y and Lifecycles are required")
	}
	fails, recs, restored := in.FailedCloses, in.Records, in.RestoredRecords
	if fails == nil {
		fails = make([]float64, n)
	}
	if recs == nil {
		recs = make([]float64, n)
	}
	if restored == nil {
		restored = make([]float64, n)
	}
	for _, c := range []struct {
		name string
		s    []float64
	}{{"Y", in.Y}, {"Lifecycles", in.Lifecycles}, {"FailedCloses", fails}, {"Records", recs}, {"RestoredRecords", restored}} {
		name, s := c.name, c.s
		if len(s) != n {
			return nil, fmt.Errorf("stats: FitSignal: %s has %d samples, Y has %d", name, len(s), n)
		}
		for i, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("stats: FitSignal: %s[%d] is %v", name, i, v)
			}
		}
	}
	return &fitter{in: in, opt: opt, n: n, fails: fails, recs: recs, restored: restored,
		f: Fit{Samples: n, Confidence: opt.Confidence, MannKendallP: 1}}, nil
}

// cutWarmup is steps 1 and 2: a level shift, else the warm-up cut; then the
// used samples.
func (ft *fitter) cutWarmup() {
	in, opt, n, fails, recs, restored := ft.in, ft.opt, ft.n, ft.fails, ft.recs, ft.restored
	f, warn, flag, signed := &ft.f, ft.warn, ft.flag, ft.signed
	// 1. Level shift.
	// A jump in the first quarter of the run, followed by a long flat
	// stretch, is an initial allocation: warm-up, cut below, not a Step.
	if st := detectStep(in.Y, in.Lifecycles); st != nil && st.Index >= n/4 {
		f.Step = st
		flag(FlagStep)
		warn("a level shift of %s at sample %d of %d dominates the series: a one-time jump, not a per-lifecycle cost", signed(st.Size), st.Index, n)
		f.WarmupReason = fmt.Sprintf("no warm-up cut: the level shift at sample %d would be mistaken for one", st.Index)
	} else {
		// 2. Warm-up.
		var atLimit bool
		f.WarmupSamples, f.WarmupReason, atLimit = detectWarmup(in.Y, in.Lifecycles, fails, restored, opt.MaxWarmupFraction)
		if atLimit {
			flag(FlagWarmupAtLimit)
			warn("the warm-up cut (%d of %d samples) reached its limit of %.0f%%, or MSER-5's proposal did: warm-up may not be over; run longer", f.WarmupSamples, n, 100*opt.MaxWarmupFraction)
		}
	}
	cut := f.WarmupSamples
	ft.cut = cut
	f.SamplesUsed = n - cut
	if f.SamplesUsed > 0 {
		f.LifecyclesUsed = in.Lifecycles[n-1] - in.Lifecycles[cut]
	}
	ft.y, ft.L, ft.F, ft.R, ft.RR = in.Y[cut:], in.Lifecycles[cut:], fails[cut:], recs[cut:], restored[cut:]
	ft.useRR = varies(ft.RR)

	ft.enough = f.SamplesUsed >= opt.MinSamples && f.SamplesUsed >= 5
	if !ft.enough {
		flag(FlagTooFew)
		warn("need at least %d samples after warm-up for a confidence interval, have %d", max(opt.MinSamples, 5), f.SamplesUsed)
	}
}

// regressLifecycles is step 3's regression on lifecycles (and failed closes
// and restored records where they vary), refitted without a counter that is
// collinear, and its Theil–Sen cross-check.
func (ft *fitter) regressLifecycles() {
	in, opt, enough, y, L, F, RR := ft.in, ft.opt, ft.enough, ft.y, ft.L, ft.F, ft.RR
	useRR := ft.useRR
	f, warn := &ft.f, ft.warn
	// 3. Regressions.
	if !varies(L) {
		warn("Lifecycles does not vary over the used samples: no per-lifecycle slope")
	} else {
		useF := varies(F)
		// cols returns the regressors after the intercept: L, then F and RR
		// when they are used; jRR is RR's coefficient index.
		cols := func() (c [][]float64, jRR int) {
			c = [][]float64{L}
			if useF {
				c = append(c, F)
			}
			if useRR {
				c = append(c, RR)
				jRR = len(c)
			}
			return c, jRR
		}
		c, jRR := cols()
		reg, err := regressOrOLS(y, opt, enough, c...)
		if err != nil && useF {
			warn("FailedCloses is collinear with Lifecycles (%v): fitted without it", err)
			useF = false
			c, jRR = cols()
			reg, err = regressOrOLS(y, opt, enough, c...)
		}
		if err != nil && useRR {
			warn("RestoredRecords is collinear with the other counters (%v): fitted without it", err)
			useRR = false
			c, jRR = cols()
			reg, err = regressOrOLS(y, opt, enough, c...)
		}
		if err != nil {
			warn("lifecycle regression failed: %v", err)
		} else {
			f.PerLifecycle = estimate(reg, 1, 1, enough)
			if useF {
				f.PerFailedClose = estimate(reg, 2, 1, enough)
			}
			if useRR {
				if rr := estimate(reg, jRR, 1, enough); rr.Valid {
					f.PerRestoredRecord = &rr
				}
			}
			f.R2 = reg.OLS.R2
			f.Lag1, f.Bandwidth = reg.Rho, reg.Bandwidth
			ft.noteResiduals(reg)
		}
		if !useF {
			f.PerFailedClose = Estimate{}
			if !varies(F) && in.FailedCloses != nil {
				warn("FailedCloses does not vary over the used samples: no per-failed-close slope")
			}
		}
		ft.theilSen(reg, err == nil, useF, useRR, jRR)
	}
	ft.useRR = useRR
}

// noteResiduals flags residuals that may be a random walk.
func (ft *fitter) noteResiduals(reg Regression) {
	opt, enough, y := ft.opt, ft.enough, ft.y
	warn, flag := ft.warn, ft.flag
	if enough && opt.Interval != IntervalCochraneOrcutt && reg.RandomWalkPlausible {
		flag(FlagRandomWalkModelled)
		what := fmt.Sprintf("a random walk (the error model allows for one; random-walk share of the innovations %.0f%%, φ̂ %.2f)", 100*reg.RandomWalkShare, reg.Rho)
		if reg.IntegratedAR {
			what = fmt.Sprintf("a random walk moving in bursts (the error model allows for one; the likelihood prefers a random walk whose steps are AR(1) with φ̂ %.2f)", reg.IntegratedPhi)
		}
		warn("the residuals may be %s: the interval is honest but narrows only as lifecycles^−½; run longer to narrow it", what)
	} else if enough && opt.Interval == IntervalCochraneOrcutt && reg.Rho >= 0.9 && residScale(reg.OLS.Resid) > 1e-9*yScale(y) {
		// (Residuals at rounding level, e.g. a constant signal, have
		// no autocorrelation to speak of.)
		flag(FlagRandomWalk)
		warn("residuals are nearly a random walk (lag-1 autocorrelation %.2f): intervals may be too narrow; run longer or sample less often", reg.Rho)
	}
}

// theilSen sets the Theil–Sen slope of the used samples on lifecycles, less
// the failed closes' and restores' shares of the regression when it
// succeeded (ok) and used them.
func (ft *fitter) theilSen(reg Regression, ok, useF, useRR bool, jRR int) {
	y, L, F, RR, f := ft.y, ft.L, ft.F, ft.RR, &ft.f
	if len(y) >= 2 {
		yt := y
		if (useF || useRR) && ok {
			// Theil–Sen is a cross-check of PerLifecycle, so take out
			// the failed closes' and restores' shares first.
			yt = make([]float64, len(y))
			for i := range y {
				yt[i] = y[i]
				if useF {
					yt[i] -= reg.Coef[2] * F[i]
				}
				if useRR {
					yt[i] -= reg.Coef[jRR] * RR[i]
				}
			}
		}
		if ts := TheilSen(L, yt); !math.IsNaN(ts) {
			f.TheilSen = ts
		}
	}
}

// regressRecords is step 3's regression on records, and Mann–Kendall.
func (ft *fitter) regressRecords() {
	in, opt, enough, y, R := ft.in, ft.opt, ft.enough, ft.y, ft.R
	f, warn := &ft.f, ft.warn
	if varies(R) {
		if reg, err := regressOrOLS(y, opt, enough, R); err == nil {
			f.PerMillionRecords = estimate(reg, 1, 1e6, enough)
		} else {
			warn("records regression failed: %v", err)
		}
	} else if in.Records != nil {
		warn("Records does not vary over the used samples: no per-record slope")
	}
	f.MannKendallZ, f.MannKendallP, _ = MannKendallCorrected(y)
}

// crossCheck is step 3's checks of a valid per-lifecycle slope: Theil–Sen
// inside its interval, the same slope in both halves.
func (ft *fitter) crossCheck() {
	in, opt, y, L, RR, useRR := ft.in, ft.opt, ft.y, ft.L, ft.RR, ft.useRR
	f, warn, flag, qty, signed := &ft.f, ft.warn, ft.flag, ft.qty, ft.signed
	pl := f.PerLifecycle
	if f.TheilSen < pl.Low || f.TheilSen > pl.High {
		warn("the robust Theil–Sen slope %s/lifecycle lies outside the interval [%s, %s]: outliers or non-linear growth", signed(f.TheilSen), qty(pl.Low), qty(pl.High))
	}
	var rrUsed []float64
	if useRR {
		rrUsed = RR
	}
	if msg, halves := halvesDiffer(y, L, rrUsed, opt, in.Unit); msg != "" {
		flag(FlagSlopeNotConstant)
		f.Halves = halves
		warn("%s", msg)
	} else if f.HasFlag(FlagWarmupAtLimit) {
		f.Halves = halves
	}
}

// levellingOff is step 4.
func (ft *fitter) levellingOff() {
	in, opt, n, cut, fails, restored := ft.in, ft.opt, ft.n, ft.cut, ft.fails, ft.restored
	y, L, F, RR, useRR := ft.y, ft.L, ft.F, ft.RR, ft.useRR
	f, warn, flag, signed := &ft.f, ft.warn, ft.flag, ft.signed
	// 4. Levelling off: a leak grows at a constant rate; growth whose
	// rate falls may be bounded.
	if f.SamplesUsed >= max(opt.MinSamples, 20) {
		cols := [][]float64{L}
		if in.FailedCloses != nil && varies(F) {
			cols = append(cols, F)
		}
		if useRR {
			cols = append(cols, RR)
		}
		rates, ok := slows(y, L, cols, opt)
		f.CurvatureRates = rates
		if ok && rates[0] > 0 {
			flag(FlagSlows)
			f.Bound = fitBound(in.Y, in.Lifecycles)
			warn("the growth slows: %s/lifecycle at the start of the used samples, %s/lifecycle at the end (the curvature's interval lies below zero); it may level off: %s",
				signed(rates[0]), signed(rates[1]), describeBound(f.Bound, in.Unit))
		} else if opt.LongWarmupShare > 0 && float64(cut) >= opt.LongWarmupShare*float64(n) {
			all := [][]float64{in.Lifecycles}
			if in.FailedCloses != nil && varies(fails) {
				all = append(all, fails)
			}
			if useRR {
				all = append(all, restored)
			}
			if run, ok := slows(in.Y, in.Lifecycles, all, opt); ok && run[0] > 0 {
				flag(FlagSlows)
				f.Bound = fitBound(in.Y, in.Lifecycles)
				warn("the growth slows over the whole run, whose warm-up cut took %d of %d samples: %s/lifecycle at the start, %s/lifecycle at the end (the curvature's interval lies below zero); it may level off: %s",
					cut, n, signed(run[0]), signed(run[1]), describeBound(f.Bound, in.Unit))
			}
		}
	}
}
