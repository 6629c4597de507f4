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
