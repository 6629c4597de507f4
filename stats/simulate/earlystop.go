package simulate

import (
	"math/rand/v2"
)

// EarlyPlanned and EarlyLifecyclesPerSample are the run the early-stop
// cases simulate: 1,500 planned lifecycles, a sample every 2.5 lifecycles
// (kafka-20616's runs take one every 2.4: 568 samples over 1,373 lifecycles
// in analysis/testdata/until-verdict).
const (
	EarlyPlanned             = 1500
	EarlyLifecyclesPerSample = 2.5
)

// EarlyStopSuite returns the cases the early stop (rocksleak run
// --until-verdict) is measured on against the full run: each a run of
// EarlyPlanned lifecycles with the real runs' noise (the native heap's
// AR(1), RSS's random walk). Issue 44's two cases, growth that levels off
// (P = 3 MiB, τ = 0.3 × the run: 250 B per lifecycle at its end) and a
// 6 KiB/lifecycle leak that starts at 40% of the run; the straight leaks
// (4 KiB, and 11 KiB with RSS +16 KiB, the leaky model); and a flat run
// (the fixed model) as the negative control. False lists what a call
// contradicting the truth is.
func EarlyStopSuite() []Case {
	n := int(EarlyPlanned/EarlyLifecyclesPerSample) + 1
	nat := func() Noise { return AR1(NativePhi, NativeSD) }
	rw := func() Noise { return RandomWalk(RSSStepSD) }
	tau := 0.3 * float64(n-1)
	late := func(perLifecycle float64) Noise { return Ramp(perLifecycle*EarlyLifecyclesPerSample, 0.4) }
	return []Case{
		{Name: "flat (fixed model)", N: n, LifecyclesPerSample: EarlyLifecyclesPerSample, Native: nat(), RSS: rw(), False: falseLeak},
		{Name: "leak 4 KiB", N: n, LifecyclesPerSample: EarlyLifecyclesPerSample, NativeSlope: 4 << 10, RSSSlope: 4 << 10,
			Native: nat(), RSS: rw(), False: falseNoLeak},
		{Name: "leak 11 KiB, RSS +16 KiB (leaky model)", N: n, LifecyclesPerSample: EarlyLifecyclesPerSample, NativeSlope: 11 << 10,
			RSSSlope: 16 << 10, Native: nat(), RSS: rw(), False: falseNoLeak},
		{Name: "plateau 3 MiB, τ = 0.3 × the run", N: n, LifecyclesPerSample: EarlyLifecyclesPerSample,
			Native: Sum(ExpWarmup(3<<20, tau), nat()), RSS: Sum(ExpWarmup(3<<20, tau), rw()), False: falseLeak, WarmupBiased: true},
		{Name: "leak 6 KiB from 40% of the run", N: n, LifecyclesPerSample: EarlyLifecyclesPerSample,
			Native: Sum(late(6<<10), nat()), RSS: Sum(late(6<<10), rw()), False: falseNoLeak, WarmupBiased: true},
	}
}

// Ramp is a growth of perSample per sample that starts at share from of
// the run (0 before): a leak that begins late.
func Ramp(perSample, from float64) Noise {
	return func(_ *rand.Rand, n int) []float64 {
		e := make([]float64, n)
		k := int(from * float64(n))
		for i := k; i < n; i++ {
			e[i] = perSample * float64(i-k)
		}
		return e
	}
}
