package simulate

import (
	"fmt"
	"math/rand/v2"

	"github.com/rocksleak/rocksleak/stats"
)

// BootstrapCase draws runs from one real model's series (a samples.csv of
// rocksleak run): the residuals of its native heap and of its RSS about
// their straight lines in lifecycles are resampled in moving blocks and
// added to known slopes. The real series carries the real error structure
// (the native heap's short memory, RSS's bursts and wander), which the
// parametric cases only imitate.
//
// Residuals: each signal's least-squares line over the samples after the
// warm-up cut the tool's own fit (analysis.Options; RSS with the batch
// widening) makes on the real series is subtracted; the cut samples are
// dropped. Resampling: circular blocks of Block samples, the same block
// starts for both signals (so their dependence is kept); the native heap's
// residuals are resampled as levels (stationary), RSS's as first
// differences and summed again (a random walk stays one, and a bootstrap of
// its levels would break it into jumps at every block edge). The lifecycle
// counts are the real series' over the samples used, so the run keeps its
// length and its sampling rhythm.
type BootstrapCase struct {
	Name                  string
	Series                Series
	NativeSlope, RSSSlope float64 // added, bytes per lifecycle
	// Clean takes RSS less the instrument's Go heap (Series.CleanRSS), as a
	// verdict on the code under test reads it.
	Clean bool
	Block int // samples per block; default 20
	False []stats.VerdictKind
}

// bootstrapResid are the two signals' residuals and the lifecycle counts
// of the samples used.
type bootstrapResid struct {
	L, nat, drss []float64
}

func (c BootstrapCase) resid(p Procedure) (bootstrapResid, error) {
	s := c.Series
	rss := s.RSS
	if c.Clean {
		rss = s.CleanRSS()
	}
	base := stats.Input{Lifecycles: s.Lifecycles, Unit: "B"}
	ni, ri := base, base
	ni.Y, ri.Y = s.NativeHeap, rss
	nf, err := stats.FitSignal(ni, p.Options)
	if err != nil {
		return bootstrapResid{}, err
	}
	rf, err := stats.FitSignal(ri, p.RSSOptions())
	if err != nil {
		return bootstrapResid{}, err
	}
	cut := max(nf.WarmupSamples, rf.WarmupSamples)
	if len(s.Lifecycles)-cut < 40 {
		return bootstrapResid{}, fmt.Errorf("simulate: %s: %d samples after the warm-up, need 40", c.Name, len(s.Lifecycles)-cut)
	}
	L := s.Lifecycles[cut:]
	nat := lineResid(L, s.NativeHeap[cut:])
	r := lineResid(L, rss[cut:])
	d := make([]float64, len(r))
	for i := 1; i < len(r); i++ {
		d[i] = r[i] - r[i-1]
	}
	return bootstrapResid{L: L, nat: nat, drss: d}, nil
}

// lineResid returns y less its least-squares line in x.
func lineResid(x, y []float64) []float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	n := float64(len(x))
	mx, my = mx/n, my/n
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	b := 0.0
	if sxx > 0 {
		b = sxy / sxx
	}
	out := make([]float64, len(y))
	for i := range y {
		out[i] = y[i] - my - b*(x[i]-mx)
	}
	return out
}

// RunBootstrap simulates reps runs of c through p (seeded by seed) and
// tallies them as Run does.
func RunBootstrap(c BootstrapCase, p Procedure, reps int, seed uint64) (Result, error) {
	res := Result{Case: c.Name, Reps: reps}
	br, err := c.resid(p)
	if err != nil {
		return res, err
	}
	n := len(br.L)
	res.N = n
	block := c.Block
	if block <= 0 {
		block = 20
	}
	r := rand.New(rand.NewPCG(seed, hash(c.Name)))
	var cn, cr int
	for range reps {
		nat, rss := make([]float64, n), make([]float64, n)
		var level float64
		for i := 0; i < n; {
			start := r.IntN(n)
			for k := 0; k < block && i < n; k++ {
				j := (start + k) % n
				nat[i] = 8<<20 + c.NativeSlope*br.L[i] + br.nat[j]
				if i > 0 {
					level += br.drss[j]
				}
				rss[i] = 40<<20 + c.RSSSlope*br.L[i] + level
				i++
			}
		}
		ni := stats.Input{Y: nat, Lifecycles: br.L, Unit: "B"}
		ri := stats.Input{Y: rss, Lifecycles: br.L, Unit: "B"}
		nf, err1 := stats.FitSignal(ni, p.Options)
		rf, err2 := stats.FitSignal(ri, p.RSSOptions())
		if err1 != nil || err2 != nil {
			res.Undecided++
			continue
		}
		cn += res.countValid(nf.PerLifecycle, c.NativeSlope, &res.ValidNative)
		cr += res.countValid(rf.PerLifecycle, c.RSSSlope, &res.ValidRSS)
		if nf.PerLifecycle.Valid && nf.PerLifecycle.Low > NativeFloor {
			res.NativeAboveFloor++
		}
		if rf.PerLifecycle.Valid && rf.PerLifecycle.Low > 0 {
			res.RSSAboveZero++
		}
		v := p.decide(nf, rf)
		res.countVerdict(v)
		for _, f := range c.False {
			if f == v {
				res.FalseCalls++
			}
		}
	}
	res.CoverNative = ratio(cn, res.ValidNative)
	res.CoverRSS = ratio(cr, res.ValidRSS)
	res.FalseRate = ratio(res.FalseCalls, reps)
	return res, nil
}

// BootstrapSuite returns the real-residual cases of issue 29 from one real
// model's series (the fixed model's: no leak of its own): a known leak of
// 11 KiB per lifecycle (the leaky model's) in both signals, and the same
// residuals with no slope (the negative control), each with RSS as
// samples.csv has it and clean of the instrument's Go heap.
func BootstrapSuite(s Series) []BootstrapCase {
	var out []BootstrapCase
	for _, clean := range []bool{false, true} {
		rss := "raw RSS"
		if clean {
			rss = "RSS − Go heap"
		}
		out = append(out,
			BootstrapCase{Name: fmt.Sprintf("%s residuals + 11 KiB/lifecycle, %s", s.Model, rss), Series: s, NativeSlope: 11 << 10, RSSSlope: 11 << 10, Clean: clean, False: falseNoLeak},
			BootstrapCase{Name: fmt.Sprintf("%s residuals, no slope, %s", s.Model, rss), Series: s, Clean: clean, False: falseLeak},
		)
	}
	return out
}
