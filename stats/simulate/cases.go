package simulate

import (
	"fmt"

	"github.com/rocksleak/rocksleak/stats"
)

// Noise levels measured on the committed reliability runs (calibration and
// kafka-20616, samples.csv, after the warm-up cut): the native heap's
// residuals behave like AR(1) with φ ≈ 0.75 and innovations of ≈ 30 KB per
// sample; RSS behaves like a random walk with steps of ≈ 20 KB per sample
// (its residuals' lag-1 autocorrelation is 0.94–0.99, that of its first
// differences 0.0–0.3).
const (
	NativePhi = 0.75
	NativeSD  = 30e3
	RSSStepSD = 20e3
)

// Floors of the default verdict: stats.DefaultNativeFloor and
// stats.DefaultRSSFloor, the ones every verdict of the tool uses (the cases
// at and around the floors are defined relative to them).
const (
	NativeFloor float64 = stats.DefaultNativeFloor
	RSSFloor    float64 = stats.DefaultRSSFloor
)

var (
	falseLeak   = []stats.VerdictKind{stats.VerdictLeak}
	falseNoLeak = []stats.VerdictKind{stats.VerdictNoLeak}
	falseAny    = []stats.VerdictKind{stats.VerdictLeak, stats.VerdictNoLeak}
)

// Suite returns the simulation cases, each at every n in ns (cases that
// need a longer run, such as a warm-up with τ = 150 samples, only at
// n ≥ 300: below 2τ a warm-up cannot be told from a leak by any method).
func Suite(ns []int) []Case {
	nat := func() Noise { return AR1(NativePhi, NativeSD) }
	rw := func() Noise { return RandomWalk(RSSStepSD) }
	// RSS growing in bursts: increments AR(1) with φ = 0.8 and the random
	// walk's marginal step (RSSStepSD), so a long-run step 3× larger.
	bursty := func() Noise { return BurstyWalk(0.8, RSSStepSD*0.6) }
	type proto struct {
		name       string
		minN       int
		nat, rss   float64
		nn, rn     Noise
		falseCalls []stats.VerdictKind
	}
	protos := []proto{
		{"white noise, flat", 0, 0, 0, White(NativeSD), White(2 * NativeSD), falseLeak},
		{"AR(1) φ=0.7, flat", 0, 0, 0, AR1(0.7, NativeSD), AR1(0.7, 2*NativeSD), falseLeak},
		{"AR(1) φ=0.95, flat", 0, 0, 0, AR1(0.95, NativeSD/3), AR1(0.95, NativeSD), falseLeak},
		{"random walk RSS, flat", 0, 0, 0, nat(), rw(), falseLeak},
		{"random walk + noise, flat", 0, 0, 0, Sum(RandomWalk(NativeSD/10), White(NativeSD)), Sum(RandomWalk(RSSStepSD/2), White(3*RSSStepSD)), falseLeak},
		{"warm-up τ=150, no slope", 300, 0, 0, Sum(ExpWarmup(1<<20, 150), nat()), Sum(ExpWarmup(4<<20, 150), rw()), falseLeak},
		{"level shift, flat", 0, 0, 0, Sum(Step(2<<20, 0.6), nat()), Sum(Step(4<<20, 0.6), rw()), falseLeak},
		{"slope at both floors", 0, NativeFloor, RSSFloor, nat(), rw(), falseAny},
		{"native at floor, RSS flat", 0, NativeFloor, 0, nat(), rw(), falseAny},
		{"leak at twice the floor", 0, 2 * NativeFloor, 2 * RSSFloor, nat(), rw(), falseNoLeak},
		{"native flat, RSS +16 KiB", 0, 0, 16 << 10, nat(), rw(), falseAny},
		{"leak 11 KiB (leaky model)", 0, 11 << 10, 16 << 10, nat(), rw(), falseNoLeak},
		{"bursty RSS, flat", 0, 0, 0, nat(), bursty(), falseLeak},
		{"leak 11 KiB, bursty RSS +16 KiB", 0, 11 << 10, 16 << 10, nat(), bursty(), falseNoLeak},
	}
	var out []Case
	for _, p := range protos {
		for _, n := range ns {
			if n < p.minN {
				continue
			}
			out = append(out, Case{
				Name: fmt.Sprintf("%s, n=%d", p.name, n), N: n,
				NativeSlope: p.nat, RSSSlope: p.rss, Native: p.nn, RSS: p.rn, False: p.falseCalls,
				WarmupBiased: p.minN > 0,
			})
		}
	}
	return out
}

// PlateauSuite returns the bounded-growth cases of issue 29: growth that
// levels off, P·(1 − e^(−L/τ)) in both the native heap and RSS (RocksDB's
// periodic-task backlog and memtables filling up grow this way), with the
// native heap's AR(1) noise and RSS's random walk, for P of 5 and 20 MiB at
// 150 and 450 samples, and three shapes: τ a third of the run's length in
// lifecycles and the whole of it at the suite's 2 lifecycles per sample,
// and the cells, τ the whole run at 22/3 lifecycles per sample
// (1,100 lifecycles over 150 samples: P = 5 MiB then ends at 1,764 B per
// lifecycle, below the native floor, as the issue states). The truth is
// bounded: "leak" is the false call. The true slope (0, the slope of the
// level reached) is not what a fit of a run still levelling off
// estimates, so coverage is reported, not counted (WarmupBiased).
func PlateauSuite() []Case {
	var out []Case
	shapes := []struct {
		name     string
		tauShare float64 // τ as a share of the run
		lps      float64
	}{
		{"τ = run/3", 1.0 / 3, 2},
		{"τ = the run", 1, 2},
		{"τ = the run, 7.3 lifecycles/sample", 1, 22.0 / 3},
	}
	for _, n := range []int{150, 450} {
		for _, sh := range shapes {
			for _, p := range []float64{5 << 20, 20 << 20} {
				tau := sh.tauShare * float64(n-1) // in samples
				out = append(out, Case{
					Name:                fmt.Sprintf("plateau %.0f MiB, %s, n=%d", p/(1<<20), sh.name, n),
					N:                   n,
					LifecyclesPerSample: sh.lps,
					Native:              Sum(ExpWarmup(p, tau), AR1(NativePhi, NativeSD)),
					RSS:                 Sum(ExpWarmup(p, tau), RandomWalk(RSSStepSD)),
					False:               falseLeak,
					WarmupBiased:        true,
				})
			}
		}
	}
	return out
}
