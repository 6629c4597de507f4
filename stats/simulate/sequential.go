package simulate

import (
	"math"
	"math/rand/v2"

	"github.com/rocksleak/rocksleak/stats"
)

// Looks is the default look schedule of the early-verdict simulation: a
// look every time the sample count grows by half, from 40 to 700 samples.
var Looks = []int{40, 60, 90, 135, 200, 300, 450, 700}

// SequentialSuite returns the cases of the early-verdict simulation, all of
// n = 700 samples (the last look).
func SequentialSuite() []Case {
	nat := func() Noise { return AR1(NativePhi, NativeSD) }
	rw := func() Noise { return RandomWalk(RSSStepSD) }
	n := Looks[len(Looks)-1]
	return []Case{
		{Name: "slope at both floors", N: n, NativeSlope: NativeFloor, RSSSlope: RSSFloor, Native: nat(), RSS: rw(), False: falseAny},
		{Name: "benign warm-up 1 MiB, τ=40", N: n, Native: Sum(ExpWarmup(1<<20, 40), nat()), RSS: Sum(ExpWarmup(1<<20, 40), rw()), False: falseLeak},
		{Name: "native flat, RSS +16 KiB", N: n, RSSSlope: 16 << 10, Native: nat(), RSS: rw(), False: falseAny},
		{Name: "leak at twice the floor", N: n, NativeSlope: 2 * NativeFloor, RSSSlope: 2 * RSSFloor, Native: nat(), RSS: rw(), False: falseNoLeak},
		{Name: "flat (AR(1) φ=0.7)", N: n, Native: AR1(0.7, NativeSD), RSS: AR1(0.7, 2*NativeSD), False: falseLeak},
	}
}

// SeqResult is the outcome of RunSequential for one case.
type SeqResult struct {
	Case                    string
	Reps                    int
	Leak, NoLeak, Undecided int // final verdicts
	FalseCalls              int
	FalseRate               float64 // familywise: share of runs with a false call at any look
	// CoverAtStop is the share of conclusive runs whose reported native
	// interval (at the stopping look's level) contains the true slope.
	CoverAtStop float64
	// MedianStop is the median number of samples at which runs stopped
	// (the last look for runs that never concluded).
	MedianStop int
}

// RunSequential simulates the whole early-verdict procedure on c: at each
// look in looks the run so far is fitted with p's options and judged by
// rule.Look; the run stops at the first conclusive verdict.
func RunSequential(c Case, p Procedure, rule stats.StopRule, looks []int, reps int, seed uint64) SeqResult {
	r := rand.New(rand.NewPCG(seed, hash("seq "+c.Name)))
	res := SeqResult{Case: c.Name, Reps: reps}
	var covered, concl int
	stops := make([]int, 0, reps)
	for range reps {
		ni, ri := c.Inputs(r)
		st := stats.StopState{}
		var d stats.Decision
		stopAt := looks[len(looks)-1]
		for _, n := range looks {
			nf, err1 := stats.FitSignal(head(ni, n), p.Options)
			rf, err2 := stats.FitSignal(head(ri, n), p.RSSOptions())
			if err1 != nil || err2 != nil {
				continue
			}
			var stop bool
			d, stop = rule.Look(&st, stats.LookData{Lifecycles: ni.Lifecycles[n-1], Native: nf, RSS: rf}, stats.DecideOptions{})
			if stop {
				stopAt = n
				break
			}
		}
		stops = append(stops, stopAt)
		switch d.Verdict {
		case stats.VerdictLeak:
			res.Leak++
		case stats.VerdictNoLeak:
			res.NoLeak++
		default:
			res.Undecided++
		}
		if c.isFalse(d.Verdict) {
			res.FalseCalls++
		}
		if d.Verdict != stats.VerdictInconclusive {
			concl++
			if d.Native.Low <= c.NativeSlope && c.NativeSlope <= d.Native.High {
				covered++
			}
		}
	}
	res.FalseRate = ratio(res.FalseCalls, reps)
	res.CoverAtStop = ratio(covered, concl)
	res.MedianStop = medianInt(stops)
	return res
}

func head(in stats.Input, n int) stats.Input {
	cut := func(s []float64) []float64 {
		if s == nil {
			return nil
		}
		return s[:n]
	}
	return stats.Input{Y: cut(in.Y), Lifecycles: cut(in.Lifecycles), FailedCloses: cut(in.FailedCloses), Records: cut(in.Records), Unit: in.Unit}
}

func medianInt(v []int) int {
	if len(v) == 0 {
		return 0
	}
	s := append([]int(nil), v...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// ControlResult is the outcome of RunControlled at one run length.
type ControlResult struct {
	Lifecycles int
	Reps       int
	Detected   int // runs whose model-against-control verdict is leak
	AAFalse    int // A/A pairs (no leak in either) called leak
	// Cover is the share of leak runs whose interval on the difference
	// contains the true leak.
	Cover float64
}

// RunControlled simulates the controlled verdict on the native heap: a
// model with a leak of leak bytes per lifecycle against its control, both
// with the native-heap noise of the real runs (AR(1), NativePhi, NativeSD,
// one sample per lifecycle as in the calibration runs), over lifecycles
// lifecycles, and an A/A pair of two controls; both judged by
// stats.CompareFits with margin 0.
func RunControlled(leak float64, lifecycles, reps int, seed uint64) ControlResult {
	r := rand.New(rand.NewPCG(seed, uint64(lifecycles)))
	res := ControlResult{Lifecycles: lifecycles, Reps: reps}
	opt := Robust().Options
	one := func(slope float64) stats.Fit {
		c := Case{N: lifecycles + 1, LifecyclesPerSample: 1, NativeSlope: slope, Native: AR1(NativePhi, NativeSD)}
		ni, _ := c.Inputs(r)
		f, _ := stats.FitSignal(ni, opt)
		return f
	}
	var cov int
	for range reps {
		d := stats.CompareFits(one(leak), one(0), stats.CompareOptions{})
		if d.Verdict == stats.VerdictLeak {
			res.Detected++
		}
		if d.Estimate.Valid && d.Estimate.Low <= leak && leak <= d.Estimate.High {
			cov++
		}
		if stats.CompareFits(one(0), one(0), stats.CompareOptions{}).Verdict == stats.VerdictLeak {
			res.AAFalse++
		}
	}
	res.Cover = float64(cov) / math.Max(1, float64(reps))
	return res
}

// PairedCase is a paired difference series (model − control of one seed):
// a true difference per lifecycle plus the noise that does not repeat
// between the two runs, one sample per lifecycle.
type PairedCase struct {
	Name  string
	Noise Noise
}

// PairedSuite returns the noise shapes the paired estimator is checked on:
// stationary AR(1), a random walk, both, noise whose level changes between
// quiet and busy periods, and a difference whose rate wanders (a random walk
// in the slope), at sizes of the order of the real calibration pairs (batch
// SEs of 30–60 B/lifecycle at 1,000–1,500 lifecycles).
func PairedSuite() []PairedCase {
	return []PairedCase{
		{"AR(1) φ=0.75, 8 KB", AR1(0.75, 8e3)},
		{"random walk, 400 B steps", RandomWalk(400)},
		{"AR(1) 8 KB + random walk 400 B", Sum(AR1(0.75, 8e3), RandomWalk(400))},
		{"quiet and busy periods", Bursty(AR1(0.75, 4e3), 200, 6)},
		{"rate wanders (random walk in the slope, 2 B/lifecycle steps)", Sum(AR1(0.75, 8e3), WanderingSlope(2))},
	}
}

// Bursty multiplies noise by k in alternate periods of p samples.
func Bursty(noise Noise, p int, k float64) Noise {
	return func(r *rand.Rand, n int) []float64 {
		e := noise(r, n)
		for i := range e {
			if (i/p)%2 == 1 {
				e[i] *= k
			}
		}
		return e
	}
}

// WanderingSlope adds a slope that itself does a random walk with steps of
// sd bytes per lifecycle: its mean over the run is the "true" difference,
// so the component is centred to a mean slope of 0 over the run's n samples.
func WanderingSlope(sd float64) Noise {
	return func(r *rand.Rand, n int) []float64 {
		e := make([]float64, n)
		s := make([]float64, n)
		var b, mean float64
		for i := range s {
			b += sd * r.NormFloat64()
			s[i] = b
			mean += b
		}
		mean /= float64(n)
		var x float64
		for i := range e {
			x += s[i] - mean
			e[i] = x
		}
		return e
	}
}

// PairedResult is the outcome of RunPaired for one case and length.
type PairedResult struct {
	Case       string
	Lifecycles int
	Reps       int
	Detected   int     // leak calls with the difference
	AAFalse    int     // leak calls without it (A/A)
	Cover      float64 // share of runs whose 95% interval contains the difference (the verdict's is stats.PairedConfidence)
}

// RunPaired simulates stats.ComparePaired on c with a true difference of
// leak bytes per lifecycle over lifecycles lifecycles, and the A/A series
// (difference 0), reps times each.
func RunPaired(c PairedCase, leak float64, lifecycles, reps int, seed uint64) PairedResult {
	r := rand.New(rand.NewPCG(seed, hash("paired "+c.Name)+uint64(lifecycles)))
	res := PairedResult{Case: c.Name, Lifecycles: lifecycles, Reps: reps}
	opt := Robust().Options
	n := lifecycles + 1
	series := func(slope float64) stats.Input {
		in := stats.Input{Y: make([]float64, n), Lifecycles: make([]float64, n)}
		e := c.Noise(r, n)
		for i := range in.Y {
			in.Lifecycles[i] = float64(i)
			in.Y[i] = slope*float64(i) + e[i]
		}
		return in
	}
	var cov int
	for range reps {
		d, _, err := stats.ComparePaired(series(leak), opt, stats.CompareOptions{})
		if err == nil && d.Verdict == stats.VerdictLeak {
			res.Detected++
		}
		if lo, hi, ok := d.Estimate.TInterval(0.95); err == nil && ok && lo <= leak && leak <= hi {
			cov++
		}
		aa, _, err := stats.ComparePaired(series(0), opt, stats.CompareOptions{})
		if err == nil && aa.Verdict == stats.VerdictLeak {
			res.AAFalse++
		}
	}
	res.Cover = float64(cov) / math.Max(1, float64(reps))
	return res
}
