package stats_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rocksleak/rocksleak/stats"
)

// run simulates n samples, one per store lifecycle, of a signal whose
// expected value is shape(i), with AR(1) noise as memory samples have.
func run(seed uint64, n int, shape func(i int) float64) stats.Input {
	r := rand.New(rand.NewPCG(seed, 1))
	in := stats.Input{Y: make([]float64, n), Lifecycles: make([]float64, n)}
	var e float64
	for i := range n {
		e = 0.7*e + 20000*r.NormFloat64()
		in.Lifecycles[i] = float64(i + 1)
		in.Y[i] = 600<<10 + shape(i) + e
	}
	return in
}

// The leaky model of measurement.md: the native heap grows 11.4 KB per
// lifecycle from the start, RSS 16 KB. DecideSignals, the rule every run's
// verdict uses, calls it a leak: both intervals lie above their floors.
func ExampleDecideSignals_leak() {
	native, _ := stats.FitSignal(run(1, 500, func(i int) float64 { return 11400 * float64(i) }), stats.DefaultOptions())
	rss, _ := stats.FitSignal(run(2, 500, func(i int) float64 { return 16000 * float64(i) }), stats.DefaultOptions())
	d := stats.DecideSignals(native, rss, stats.DecideOptions{})
	fmt.Println(d.Verdict)
	// Output:
	// leak
}

// The fixed model: the native heap is flat, RSS rises ~6 KB per lifecycle
// for the first 750 lifecycles and then stays flat. The warm-up is cut and
// DecideSignals reports no leak: both intervals lie below their floors.
func ExampleDecideSignals_fixed() {
	native, _ := stats.FitSignal(run(3, 1500, func(int) float64 { return 0 }), stats.DefaultOptions())
	rss, _ := stats.FitSignal(run(4, 1500, func(i int) float64 { return 6000 * math.Min(float64(i), 750) }), stats.DefaultOptions())
	d := stats.DecideSignals(native, rss, stats.DecideOptions{})
	fmt.Println(d.Verdict)
	fmt.Println(rss.WarmupSamples >= 700 && rss.WarmupSamples <= 750)
	// Output:
	// no leak
	// true
}
