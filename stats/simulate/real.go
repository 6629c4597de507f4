package simulate

import (
	"github.com/rocksleak/rocksleak/stats"
	"gonum.org/v1/gonum/stat"
)

// Series is one model's samples as a samples.csv holds them (scripts/statscheck
// reads them; see schema.Sample): the counters and the two memory signals, in
// bytes and counts.
type Series struct {
	Model                             string
	Lifecycles, FailedCloses, Records []float64
	// RestoredRecords is the cumulative count of changelog records
	// replayed by restores (zeros in files written before it was recorded).
	RestoredRecords []float64
	NativeHeap, RSS []float64
	// CodeRSS is the RSS the verdicts read, sample by sample: the code
	// under test's, RSS less what the instrument's runtime holds
	// (analysis.SignalValue of "rss"). Nil in series built without it
	// (Input then takes RSS).
	CodeRSS []float64
	// GoHeap is the child's Go heap (the instrument's own memory inside the
	// measured process; CleanRSS takes it out of RSS).
	GoHeap []float64
}

// CleanRSS is RSS less the instrument's Go heap, sample by sample: the RSS
// of the code under test, as far as samples.csv can tell it (the Go
// runtime's other memory, its GC headroom among it, is still in).
func (s Series) CleanRSS() []float64 {
	out := make([]float64, len(s.RSS))
	for i := range out {
		out[i] = s.RSS[i]
		if i < len(s.GoHeap) {
			out[i] -= s.GoHeap[i]
		}
	}
	return out
}

// Input returns the stats.Input of one signal ("native_heap" or "rss"), as
// analysis.FitSamples builds it: RSS (CodeRSS when the series has it, the
// RSS the verdicts read) with restored records as a regressor.
func (s Series) Input(signal string) stats.Input {
	in := stats.Input{Lifecycles: s.Lifecycles, FailedCloses: s.FailedCloses, Records: s.Records, Unit: "B"}
	switch signal {
	case "rss":
		in.Y = s.RSS
		if len(s.CodeRSS) == len(s.RSS) {
			in.Y = s.CodeRSS
		}
		in.RestoredRecords = s.RestoredRecords
	default:
		in.Y = s.NativeHeap
	}
	return in
}

// Spread is the across-seed repeatability of one model's slope on one
// signal: the standard deviation of the per-seed slopes against the median
// standard error the fits report. Ratio ≤ 1.5 means the reported errors
// are honest about what another seed would measure.
type Spread struct {
	Run, Model, Signal string
	Total              bool // failed closes left out of the fit
	Seeds              int
	MeanSlope, SD      float64 // of the per-seed per-lifecycle slopes
	MedianSE           float64
	Ratio              float64 // SD / MedianSE
	RandomWalk         int     // seeds whose error model allows a random walk (FlagRandomWalkModelled)
	Flagged            int     // seeds whose fit carries a blocking flag
}

// SeedSpread fits signal ("native_heap" or "rss") of model in every seed
// with opt and returns the spread of the slopes against their SEs. With
// total the failed closes are left out of the fit (Y ~ 1 + Lifecycles: the
// total growth per lifecycle, which the verdict reads); otherwise the
// per-lifecycle slope of Y ~ 1 + Lifecycles + FailedCloses.
func SeedSpread(run string, seeds []map[string]Series, model, signal string, total bool, opt stats.Options) (Spread, error) {
	sp := Spread{Run: run, Model: model, Signal: signal, Total: total}
	var slopes, ses []float64
	for _, s := range seeds {
		ser, ok := s[model]
		if !ok {
			continue
		}
		in := ser.Input(signal)
		if total {
			in.FailedCloses = nil
		}
		f, err := stats.FitSignal(in, opt)
		if err != nil {
			return sp, err
		}
		if !f.PerLifecycle.Valid {
			continue
		}
		slopes = append(slopes, f.PerLifecycle.Value)
		ses = append(ses, f.PerLifecycle.SE)
		if f.HasFlag(stats.FlagRandomWalkModelled) {
			sp.RandomWalk++
		}
		for _, k := range []stats.Flag{stats.FlagTooFew, stats.FlagWarmupAtLimit, stats.FlagSlopeNotConstant, stats.FlagRandomWalk, stats.FlagStep} {
			if f.HasFlag(k) {
				sp.Flagged++
				break
			}
		}
	}
	sp.Seeds = len(slopes)
	if sp.Seeds < 2 {
		return sp, nil
	}
	sp.MeanSlope, sp.SD = stat.MeanStdDev(slopes, nil)
	sp.MedianSE = stats.Median(ses)
	if sp.MedianSE > 0 {
		sp.Ratio = sp.SD / sp.MedianSE
	}
	return sp, nil
}

// RealControlled runs the controlled verdict on real native-heap series:
// for every seed i, model = seed i's series of model with leak bytes per
// lifecycle added (leak·Lifecycles), control = seed i+1's series (cyclic),
// both cut to their first lifecycles lifecycles and fitted on lifecycles
// alone (the total growth per lifecycle); and the A/A pair without the
// added leak. Pairing different seeds keeps the seed-to-seed variation
// a real model-against-control comparison has; copt may carry the
// between-run SD measured on the same seeds.
func RealControlled(seeds []map[string]Series, model string, leak float64, lifecycles float64, opt stats.Options, copt stats.CompareOptions) (detected, aaFalse, pairs int, err error) {
	var ss []Series
	for _, s := range seeds {
		if m, ok := s[model]; ok {
			ss = append(ss, m)
		}
	}
	if len(ss) < 2 {
		return 0, 0, 0, nil
	}
	trunc := func(s Series, add float64) stats.Input {
		n := len(s.Lifecycles)
		for n > 0 && s.Lifecycles[n-1] > lifecycles {
			n--
		}
		in := Series{Lifecycles: s.Lifecycles[:n], FailedCloses: s.FailedCloses[:n], Records: s.Records[:n], NativeHeap: make([]float64, n)}
		for i := 0; i < n; i++ {
			in.NativeHeap[i] = s.NativeHeap[i] + add*s.Lifecycles[i]
		}
		ni := in.Input("native_heap")
		ni.FailedCloses = nil // the total growth per lifecycle
		return ni
	}
	for i := range ss {
		j := (i + 1) % len(ss)
		a, err := stats.FitSignal(trunc(ss[i], leak), opt)
		if err != nil {
			return 0, 0, 0, err
		}
		a0, err := stats.FitSignal(trunc(ss[i], 0), opt)
		if err != nil {
			return 0, 0, 0, err
		}
		b, err := stats.FitSignal(trunc(ss[j], 0), opt)
		if err != nil {
			return 0, 0, 0, err
		}
		if stats.CompareFits(a, b, copt).Verdict == stats.VerdictLeak {
			detected++
		}
		if stats.CompareFits(a0, b, copt).Verdict == stats.VerdictLeak {
			aaFalse++
		}
		pairs++
	}
	return detected, aaFalse, pairs, nil
}

// VerdictCounts is the tally of one model's verdicts over the seeds of a
// run.
type VerdictCounts struct {
	Leak, NoLeak, Inconclusive int
	// Settle is one seed's Settle sentence for an inconclusive verdict
	// (the first), to show what the procedure asks for.
	Settle string
}

// RealVerdicts decides every seed of model from its total (lifecycle-only)
// native-heap and RSS fits, by p (Legacy: LegacyDecide; Robust:
// stats.DecideSignals).
func RealVerdicts(seeds []map[string]Series, model string, p Procedure) (VerdictCounts, error) {
	var vc VerdictCounts
	for _, s := range seeds {
		ser, ok := s[model]
		if !ok {
			continue
		}
		ni, ri := ser.Input("native_heap"), ser.Input("rss")
		ni.FailedCloses, ri.FailedCloses = nil, nil
		nf, err := stats.FitSignal(ni, p.Options)
		if err != nil {
			return vc, err
		}
		rf, err := stats.FitSignal(ri, p.RSSOptions())
		if err != nil {
			return vc, err
		}
		switch p.decide(nf, rf) {
		case stats.VerdictLeak:
			vc.Leak++
		case stats.VerdictNoLeak:
			vc.NoLeak++
		default:
			vc.Inconclusive++
			if vc.Settle == "" && p.Decide == nil {
				d := stats.DecideSignals(nf, rf, stats.DecideOptions{})
				vc.Settle = d.Reason + " → " + d.Settle
			}
		}
	}
	return vc, nil
}
