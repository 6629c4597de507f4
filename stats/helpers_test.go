package stats

import (
	"math"
	"math/rand/v2"
)

// ar1 returns n samples of a stationary AR(1) process xₜ = φxₜ₋₁ + εₜ with
// innovation standard deviation sd.
func ar1(r *rand.Rand, n int, phi, sd float64) []float64 {
	e := make([]float64, n)
	x := r.NormFloat64() * sd / math.Sqrt(1-phi*phi)
	for i := range e {
		x = phi*x + r.NormFloat64()*sd
		e[i] = x
	}
	return e
}

// synth builds an Input with one sample per lifecycle (Lifecycles = 1..n),
// 120 records per lifecycle, no failed closes, and Y = 1 MB + shape(i) +
// noise[i].
func synth(n int, shape func(i int) float64, noise []float64) Input {
	in := Input{Y: make([]float64, n), Lifecycles: make([]float64, n), Records: make([]float64, n)}
	for i := 0; i < n; i++ {
		in.Lifecycles[i] = float64(i + 1)
		in.Records[i] = 120 * float64(i+1)
		in.Y[i] = 1 << 20
		if shape != nil {
			in.Y[i] += shape(i)
		}
		if noise != nil {
			in.Y[i] += noise[i]
		}
	}
	return in
}

// Shapes of the synthetic signals, per sample i (= lifecycle i+1).
func line(slope float64) func(int) float64 {
	return func(i int) float64 { return slope * float64(i) }
}

// knee rises by slope per lifecycle until sample k, then stays flat.
func knee(slope float64, k int) func(int) float64 {
	return func(i int) float64 { return slope * math.Min(float64(i), float64(k)) }
}

// peak is a transient bump of height h centred on sample c, width w, that
// falls back to the baseline (like a restore).
func peak(h float64, c, w int) func(int) float64 {
	return func(i int) float64 { return h * math.Exp(-math.Pow(float64(i-c)/float64(w), 2)) }
}

// step shifts the level by h from sample k on.
func step(h float64, k int) func(int) float64 {
	return func(i int) float64 {
		if i >= k {
			return h
		}
		return 0
	}
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }
