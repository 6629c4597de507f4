package stats_test

import (
	"fmt"

	"github.com/rocksleak/rocksleak/measure/stats"
)

// A fit's per-lifecycle estimate with a 95% interval, for the examples.
func fitOf(value, se, df float64) stats.Fit {
	return stats.Fit{
		PerLifecycle: stats.Estimate{Value: value, SE: se, DF: df, Low: value - 2*se, High: value + 2*se, Valid: true},
		N:            600, Used: 550, LifecyclesUsed: 1100, Confidence: 0.95,
	}
}

func ExampleDecideSignals() {
	native, rss := fitOf(300, 100, 500), fitOf(6000, 1500, 500)
	d := stats.DecideSignals(native, rss, stats.DecideOptions{})
	fmt.Println(d.Verdict)
	fmt.Println(d.Reason)
	fmt.Println(d.Settle)
	// Output:
	// inconclusive
	// inconclusive: RSS +5.86 KiB/lifecycle [2.98 KiB, 8.74 KiB] (95%) includes its floor 4.00 KiB/lifecycle
	// run ~380 more lifecycles for the interval to clear the floor
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
