package results

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/measure/stats"
	"github.com/rocksleak/rocksleak/scenarios"
)

// The signals every model's samples are fitted on, in report order.
const (
	SignalNativeHeap = "native_heap"
	SignalRSS        = "rss"
	SignalGoHeap     = "go_heap"
	SignalFDs        = "fds"
)

// Signals lists the fitted signals in report order.
func Signals() []string { return []string{SignalNativeHeap, SignalRSS, SignalGoHeap, SignalFDs} }

func signalValue(s measure.Sample, signal string) float64 {
	switch signal {
	case SignalNativeHeap:
		return float64(s.NativeHeap)
	case SignalRSS:
		return float64(s.RSS)
	case SignalGoHeap:
		return float64(s.GoHeap)
	case SignalFDs:
		return float64(s.FDs)
	}
	panic("unknown signal " + signal)
}

// Estimate is a point estimate with its 95% interval, as stored in result.json.
type Estimate struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	SE    float64 `json:"se"`
	DF    float64 `json:"df"`
	Valid bool    `json:"valid"`
}

func fromStats(e stats.Estimate) Estimate {
	return Estimate{Value: e.Value, Low: e.Low, High: e.High, SE: e.SE, DF: e.DF, Valid: e.Valid}
}

func (e Estimate) stats() stats.Estimate {
	return stats.Estimate{Value: e.Value, Low: e.Low, High: e.High, SE: e.SE, DF: e.DF, Valid: e.Valid}
}

// SignalFit is one signal's fit for one model: slopes in the signal's unit
// (bytes; open FDs for "fds") per lifecycle, per failed close and per million
// records, each with its 95% interval.
type SignalFit struct {
	Unit                   string     `json:"unit"` // "bytes" or "fds"
	BytesPerLifecycle      float64    `json:"bytes_per_lifecycle"`
	CI95                   [2]float64 `json:"ci95"`
	BytesPerFailedClose    float64    `json:"bytes_per_failed_close"`
	BytesPerMillionRecords float64    `json:"bytes_per_million_records"`
	PerLifecycle           Estimate   `json:"per_lifecycle"`
	PerFailedClose         Estimate   `json:"per_failed_close"`
	PerMillionRecords      Estimate   `json:"per_million_records"`
	R2                     float64    `json:"r2"`
	Samples                int        `json:"samples"`
	SamplesUsed            int        `json:"samples_used"`
	WarmupSamples          int        `json:"warmup_samples"`
	WarmupReason           string     `json:"warmup_reason"`
	// WarmupEndLifecycles is the lifecycle count at the first used sample
	// (samples are the model's non-timer samples; see FitSamples).
	WarmupEndLifecycles float64   `json:"warmup_end_lifecycles"`
	Step                *StepInfo `json:"step,omitempty"`
	TheilSen            float64   `json:"theil_sen"`
	MannKendallZ        float64   `json:"mann_kendall_z"`
	MannKendallP        float64   `json:"mann_kendall_p"`
	Lag1                float64   `json:"lag1_autocorrelation"`
	Confidence          float64   `json:"confidence"` // of every interval in this fit
	// Intercept places the fitted line: Y ≈ Intercept + PerLifecycle·L +
	// PerFailedClose·F over the used samples (the line through their centroid).
	Intercept float64  `json:"intercept"`
	Warnings  []string `json:"warnings"`
	// Total is the fit on lifecycles alone (Y ~ 1 + Lifecycles): the whole
	// growth per lifecycle at the run's failure rate, failed closes included.
	// Verdicts are decided on it; the fields above separate the two costs.
	Total *SignalFit `json:"total,omitempty"`
}

// StepInfo is a level shift found in a signal (index into the samples).
type StepInfo struct {
	Index int     `json:"index"`
	Size  float64 `json:"size"`
}

func (f SignalFit) statsFit() stats.Fit {
	return stats.Fit{PerLifecycle: f.PerLifecycle.stats(), PerFailedClose: f.PerFailedClose.stats(),
		PerMillionRecords: f.PerMillionRecords.stats(), R2: f.R2, N: f.Samples, Used: f.SamplesUsed,
		WarmupCut: f.WarmupSamples, WarmupReason: f.WarmupReason, TheilSen: f.TheilSen,
		MannKendallZ: f.MannKendallZ, MannKendallP: f.MannKendallP, Confidence: f.confidence(), Lag1: f.Lag1,
		Warnings: f.Warnings}
}

func (f SignalFit) confidence() float64 {
	if f.Confidence > 0 && f.Confidence < 1 {
		return f.Confidence
	}
	return 0.95
}

// Resident is what one open store instance (a DB: a kv store or one window
// segment) costs while it is open, from the run's steady state: the median,
// over the second half of the samples, of (signal − the signal at the first
// sample, taken before anything was opened) / open DBs. Bytes per open DB.
// For RSS the Go heap (the harness's own memory: changelog, samples) is
// subtracted first.
// Under a leaky model it includes what leaked so far, so read it from a
// model that does not leak.
type Resident struct {
	NativeHeapPerDB float64 `json:"native_heap_per_db"`
	RSSPerDB        float64 `json:"rss_per_db"`
	OpenDBs         float64 `json:"open_dbs"` // median open DBs over the same samples
}

func residentOf(samples []measure.Sample) *Resident {
	if len(samples) < 4 {
		return nil
	}
	base := samples[0]
	tail := samples[len(samples)/2:]
	var nat, rss, dbs []float64
	for _, s := range tail {
		if s.RocksDB.OpenDBs <= 0 {
			continue
		}
		n := float64(s.RocksDB.OpenDBs)
		nat = append(nat, float64(s.NativeHeap-base.NativeHeap)/n)
		// The harness's own memory is Go heap; keep it out of the RSS figure.
		rss = append(rss, float64((s.RSS-s.GoHeap)-(base.RSS-base.GoHeap))/n)
		dbs = append(dbs, n)
	}
	if len(dbs) == 0 {
		return nil
	}
	return &Resident{NativeHeapPerDB: median(nat), RSSPerDB: median(rss), OpenDBs: median(dbs)}
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Verdict is a model's leak verdict: Leak is true, false, or null when
// inconclusive; Reason says why, in words and numbers.
type Verdict struct {
	Leak     *bool    `json:"leak"`
	Reason   string   `json:"reason"`
	Warnings []string `json:"warnings,omitempty"`
}

// Comparison is the difference in per-lifecycle slope between two models'
// runs (A − B) for one signal.
type Comparison struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	Signal     string   `json:"signal"`
	Difference Estimate `json:"difference_per_lifecycle"`
}

// Attribution splits the leaky model's growth into the two leaks, from the
// whole per-lifecycle growth (Total fits) of the four models' runs: the
// offsets-options leak is finally-fix − fixed (the model with only that leak),
// the handle leak is options-fix − fixed, per lifecycle at the run's failure
// rate and, divided by the options-fix run's failed closes per lifecycle, per
// failed close.
type Attribution struct {
	Signal                   string   `json:"signal"`
	OptionsLeakPerLifecycle  Estimate `json:"options_leak_per_lifecycle"`
	HandleLeakPerLifecycle   Estimate `json:"handle_leak_per_lifecycle"`
	HandleLeakPerFailedClose Estimate `json:"handle_leak_per_failed_close"`
	LeakyTotalPerLifecycle   Estimate `json:"leaky_total_per_lifecycle"`
	// Interaction is leaky − options-fix − finally-fix + fixed: what the
	// two leaks cost together beyond their sum (≈ 0 when they add up).
	Interaction float64 `json:"interaction_per_lifecycle"`
}

// VerdictFloors are the absolute floors a leak must clear, in bytes per lifecycle.
type VerdictFloors struct {
	NativeHeap float64 `json:"native_heap"`
	RSS        float64 `json:"rss"`
}

// DefaultFloors are the floors used unless a run says otherwise.
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
func DefaultFloors() VerdictFloors {
	return VerdictFloors{NativeHeap: 2048, RSS: 12288}
}

// FitSamples fits every signal of one model's samples. Timer samples are left
// out: the fits regress on event counters, and how many timer samples fall
// between two lifecycles depends on how fast the machine ran, not on the
// code under test.
func FitSamples(all []measure.Sample) (map[string]SignalFit, error) {
	return fitSamples(all, stats.DefaultOptions(), Signals())
}

func fitSamples(all []measure.Sample, opt stats.Options, signals []string) (map[string]SignalFit, error) {
	samples := make([]measure.Sample, 0, len(all))
	for _, s := range all {
		if s.Trigger != measure.TriggerTimer {
			samples = append(samples, s)
		}
	}
	in := stats.Input{}
	for _, s := range samples {
		in.Lifecycles = append(in.Lifecycles, float64(s.Lifecycles))
		in.FailedCloses = append(in.FailedCloses, float64(s.FailedCloses))
		in.Records = append(in.Records, float64(s.Records))
	}
	fits := map[string]SignalFit{}
	for _, sig := range signals {
		y := make([]float64, len(samples))
		for i, s := range samples {
			y[i] = signalValue(s, sig)
		}
		in.Y = y
		in.Unit = ""
		unit := "bytes"
		if sig == SignalFDs {
			in.Unit, unit = "FDs", "fds"
		}
		f, err := stats.FitSignal(in, opt)
		if err != nil {
			return nil, fmt.Errorf("fitting %s: %w", sig, err)
		}
		sf := toSignalFit(f, unit, in)
		total := in
		total.FailedCloses = nil
		tf, err := stats.FitSignal(total, opt)
		if err != nil {
			return nil, fmt.Errorf("fitting %s on lifecycles alone: %w", sig, err)
		}
		t := toSignalFit(tf, unit, total)
		sf.Total = &t
		fits[sig] = sf
	}
	return fits, nil
}

func toSignalFit(f stats.Fit, unit string, in stats.Input) SignalFit {
	sf := SignalFit{Unit: unit,
		BytesPerLifecycle: f.PerLifecycle.Value, CI95: [2]float64{f.PerLifecycle.Low, f.PerLifecycle.High},
		BytesPerFailedClose: f.PerFailedClose.Value, BytesPerMillionRecords: f.PerMillionRecords.Value,
		PerLifecycle: fromStats(f.PerLifecycle), PerFailedClose: fromStats(f.PerFailedClose),
		PerMillionRecords: fromStats(f.PerMillionRecords), R2: f.R2, Samples: f.N, SamplesUsed: f.Used,
		WarmupSamples: f.WarmupCut, WarmupReason: f.WarmupReason, TheilSen: f.TheilSen,
		MannKendallZ: f.MannKendallZ, MannKendallP: f.MannKendallP, Lag1: f.Lag1, Confidence: f.Confidence,
		Warnings: append([]string{}, f.Warnings...)}
	if f.Step != nil {
		sf.Step = &StepInfo{Index: f.Step.Index, Size: f.Step.Size}
	}
	if f.WarmupCut < len(in.Lifecycles) {
		sf.WarmupEndLifecycles = in.Lifecycles[f.WarmupCut]
	}
	// The fitted line through the centroid of the used samples.
	var sum float64
	n := 0
	for i := f.WarmupCut; i < len(in.Y); i++ {
		sum += in.Y[i] - f.PerLifecycle.Value*in.Lifecycles[i]
		if in.FailedCloses != nil {
			sum -= validOr0(f.PerFailedClose) * in.FailedCloses[i]
		}
		n++
	}
	if n > 0 {
		sf.Intercept = sum / float64(n)
	}
	return sf
}

func validOr0(e stats.Estimate) float64 {
	if e.Valid {
		return e.Value
	}
	return 0
}

// Analyze fits every model's samples, decides each model's verdict, and
// compares the models pairwise and, when all four ran, attributes the leaky
// model's growth to the two leaks. It fills the Fits, Verdict, Comparisons and
// Attribution fields of r.
func Analyze(r *Result, samples map[string][]measure.Sample, floors VerdictFloors) error {
	r.Floors = floors
	for _, m := range r.Models {
		run := r.Runs[m]
		ss := samples[m]
		if len(ss) == 0 {
			continue
		}
		fits, err := FitSamples(ss)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		run.Fits = fits
		run.Resident = residentOf(ss)
		v := stats.Decide(fits[SignalNativeHeap].Total.statsFit(), fits[SignalRSS].Total.statsFit(),
			stats.VerdictOptions{NativeFloor: floors.NativeHeap, RSSFloor: floors.RSS})
		run.Verdict = &Verdict{Leak: v.Leak, Reason: v.Reason, Warnings: v.Warnings}
	}
	r.Comparisons = nil
	for i, a := range r.Models {
		for _, b := range r.Models[i+1:] {
			ra, rb := r.Runs[a], r.Runs[b]
			if ra.Fits == nil || rb.Fits == nil {
				continue
			}
			for _, sig := range []string{SignalNativeHeap, SignalRSS} {
				d := stats.Difference(ra.Fits[sig].Total.statsFit(), rb.Fits[sig].Total.statsFit())
				r.Comparisons = append(r.Comparisons, Comparison{A: a, B: b, Signal: sig, Difference: fromStats(d)})
			}
		}
	}
	r.Attribution = attribute(r)
	r.Calibration = calibrate(r)
	return nil
}

// Calibration checks the estimators against a known leak: a "+synthetic"
// model leaks KnownPerLifecycle bytes per lifecycle on top of its control
// (the same model without the suffix, in the same run), so the difference of
// their whole per-lifecycle growth should recover it. Errors are relative:
// (estimate − known) / known.
type Calibration struct {
	Model             string   `json:"model"`
	Control           string   `json:"control"`
	KnownPerLifecycle float64  `json:"known_bytes_per_lifecycle"`
	NativeHeap        Estimate `json:"native_heap"`
	NativeHeapError   float64  `json:"native_heap_relative_error"`
	RSS               Estimate `json:"rss"`
	RSSError          float64  `json:"rss_relative_error"`
}

func calibrate(r *Result) []Calibration {
	known := float64(r.Scenario.SyntheticLeakBytes)
	if known <= 0 {
		return nil
	}
	var out []Calibration
	for _, m := range r.Models {
		control, ok := strings.CutSuffix(m, scenarios.SyntheticSuffix)
		rm, rc := r.Runs[m], r.Runs[control]
		if !ok || rc == nil || rm.Fits == nil || rc.Fits == nil {
			continue
		}
		diff := func(sig string) Estimate {
			return fromStats(stats.Difference(rm.Fits[sig].Total.statsFit(), rc.Fits[sig].Total.statsFit()))
		}
		c := Calibration{Model: m, Control: control, KnownPerLifecycle: known,
			NativeHeap: diff(SignalNativeHeap), RSS: diff(SignalRSS)}
		c.NativeHeapError = (c.NativeHeap.Value - known) / known
		c.RSSError = (c.RSS.Value - known) / known
		out = append(out, c)
	}
	return out
}

func attribute(r *Result) []Attribution {
	get := func(m string) *Run {
		if run, ok := r.Runs[m]; ok && run.Fits != nil {
			return run
		}
		return nil
	}
	leaky, fixed, opt, fin := get("leaky"), get("fixed"), get("options-fix"), get("finally-fix")
	if leaky == nil || fixed == nil || opt == nil || fin == nil {
		return nil
	}
	var out []Attribution
	for _, sig := range []string{SignalNativeHeap, SignalRSS} {
		// Whole growth per lifecycle: each single-fix model carries one leak.
		f := func(run *Run) stats.Fit { return run.Fits[sig].Total.statsFit() }
		handle := stats.Difference(f(opt), f(fixed))
		a := Attribution{Signal: sig,
			OptionsLeakPerLifecycle: fromStats(stats.Difference(f(fin), f(fixed))),
			HandleLeakPerLifecycle:  fromStats(handle),
			LeakyTotalPerLifecycle:  fromStats(stats.Difference(f(leaky), f(fixed))),
		}
		// Per failed close: the handle leak per lifecycle over the options-fix
		// run's failed closes per lifecycle (its interval scales with it).
		if opt.FailedCloses > 0 && opt.Lifecycles > 0 {
			k := float64(opt.Lifecycles) / float64(opt.FailedCloses)
			a.HandleLeakPerFailedClose = Estimate{Value: k * handle.Value, Low: k * handle.Low, High: k * handle.High,
				SE: k * handle.SE, DF: handle.DF, Valid: handle.Valid}
		}
		a.Interaction = f(leaky).PerLifecycle.Value - f(opt).PerLifecycle.Value -
			f(fin).PerLifecycle.Value + f(fixed).PerLifecycle.Value
		out = append(out, a)
	}
	return out
}
