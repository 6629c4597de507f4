package stats_test

import (
	"fmt"

	"github.com/rocksleak/rocksleak/stats"
)

// A fit's per-lifecycle estimate with a 95% interval, for the examples.
func fitOf(value, se, df float64) stats.Fit {
	return stats.Fit{
		PerLifecycle: stats.Estimate{Value: value, SE: se, DF: df, Low: value - 2*se, High: value + 2*se, Valid: true},
		Samples:      600, SamplesUsed: 550, LifecyclesUsed: 1100, Confidence: 0.95,
	}
}

func ExampleDecideSignals() {
	native, rss := fitOf(300, 100, 500), fitOf(14000, 1500, 500)
	d := stats.DecideSignals(native, rss, stats.DecideOptions{})
	fmt.Println(d.Verdict)
	fmt.Println(d.Reason)
	fmt.Println(d.Settle)
	// Output:
	// inconclusive
	// inconclusive: RSS +13.7 KiB/lifecycle [10.8 KiB, 16.5 KiB] (95%) includes its floor 12.0 KiB/lifecycle
	// run ~480 more lifecycles for the interval to clear the floor
}

func ExampleCompareFits() {
	model, control := fitOf(700, 40, 300), fitOf(450, 40, 300)
	c := stats.CompareFits(model, control, stats.CompareOptions{})
	fmt.Println(c.Verdict)
	fmt.Println(c.Reason)
	// Output:
	// leak
	// leak against the control: difference +250 B/lifecycle [139 B, 361 B] (95%) lies above 0 B/lifecycle
}
