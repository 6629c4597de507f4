package main

import (
	"fmt"
	"os"
	"regexp"
	"text/tabwriter"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/stats"
	"github.com/rocksleak/rocksleak/stats/simulate"
)

// frontierPairs are the pairs of simulate.FrontierSuite at the per-case
// table's sizes whose row name (frontierRow) rows matches (all when rows is
// nil).
func frontierPairs(rows *regexp.Regexp) []simulate.FrontierPair {
	var out []simulate.FrontierPair
	for _, p := range simulate.FrontierSuite(caseSizes) {
		if rows == nil || rows.MatchString(frontierRow(p)) {
			out = append(out, p)
		}
	}
	return out
}

// frontierRow names a frontier table's row: "white noise / random walk,
// n=300".
func frontierRow(p simulate.FrontierPair) string {
	return fmt.Sprintf("%s / %s, n=%d", p.Stationary, p.WalkName(), p.N)
}

// frontier prints the coverage frontier (simulate.RunFrontier) of the pairs
// of simulate.FrontierSuite at the per-case table's sizes (the rows rows
// matches; all when nil), reps series of each model per pair, and
// stats.RegressRobust's and stats.RegressCalibrated's own coverage on the
// first robustReps of them; with rows set, those two also to three places
// with their Monte Carlo interval.
func frontier(reps, robustReps int, seed uint64, rows *regexp.Regexp) error {
	fmt.Printf("\nCoverage frontier: how close an interval can come to the goal (%s–%s) on a stationary model (S) and on the same plus a\n",
		f2(simulate.GoalCoverLow), f2(simulate.GoalCoverHigh))
	fmt.Println("walk (W) carrying a share r of the innovation variance, knowing that one of the two is the truth: each model's own 95%")
	fmt.Println("interval (stats.RegressUnder), picked by their likelihood ratio at every threshold (simulate.RunFrontier); no slope,")
	fmt.Printf("2 lifecycles/sample, %d series of each per cell (seed %d). A cell reads W/S: W's best coverage while S's is ≤ %s, and S's\n", reps, seed, f2(simulate.GoalCoverHigh))
	fmt.Printf("best while W's is ≥ %s; × marks a pair with no threshold meeting both: covering S within the goal there means covering\n", f2(simulate.GoalCoverLow))
	fmt.Println("a walk the data cannot tell from it below 0.90.")
	var results []simulate.FrontierResult
	for _, p := range frontierPairs(rows) {
		res, err := simulate.RunFrontier(p, reps, robustReps, seed)
		if err != nil {
			return fmt.Errorf("frontier %s: %w", p.Stationary, err)
		}
		results = append(results, res)
	}
	if err := frontierGrid(results, func(r simulate.FrontierResult) string {
		mark := ""
		if !r.Feasible {
			mark = "×"
		}
		return f3(r.BestWalk) + "/" + f3(r.BestStationary) + mark
	}); err != nil {
		return err
	}
	fmt.Printf("\nRegressRobust's coverage (stats.RegressRobust, the native heap's interval before issue 29) of the same pairs, the first %d series of each: W/S\n", robustReps)
	fmt.Println("(! marks a coverage below 0.90).")
	if err := frontierGrid(results, func(r simulate.FrontierResult) string {
		mark := ""
		if r.RobustWalk < simulate.GoalCoverLow || r.RobustStationary < simulate.GoalCoverLow {
			mark = "!"
		}
		return f2(r.RobustWalk) + "/" + f2(r.RobustStationary) + mark
	}); err != nil {
		return err
	}
	fmt.Printf("\nThe calibrated interval's coverage (stats.RegressCalibrated, the native heap's interval: batch means where the likelihood\n")
	fmt.Printf("region does not widen the interval, from %d samples on) of the same series: W/S (! marks a coverage below 0.90).\n", stats.CalibratedMinSamples)
	if err := frontierGrid(results, func(r simulate.FrontierResult) string {
		mark := ""
		if r.CalibratedWalk < simulate.GoalCoverLow || r.CalibratedStationary < simulate.GoalCoverLow {
			mark = "!"
		}
		return f2(r.CalibratedWalk) + "/" + f2(r.CalibratedStationary) + mark
	}); err != nil {
		return err
	}
	if rows != nil {
		fmt.Printf("\nTo three places, with the Monte Carlo 95%% interval (Wilson, %d series of each):\n", robustReps)
		for _, r := range results {
			fmt.Printf("  %s, r=%g: RegressRobust W %s, S %s; calibrated W %s, S %s\n", frontierRow(r.Pair), r.Pair.Share,
				wilson(r.RobustWalk, r.RobustReps), wilson(r.RobustStationary, r.RobustReps),
				wilson(r.CalibratedWalk, r.RobustReps), wilson(r.CalibratedStationary, r.RobustReps))
		}
	}
	return nil
}

// frontierGrid prints results (simulate.FrontierSuite's order) as one row
// per stationary model, walk and n, one column per walk share.
func frontierGrid(results []simulate.FrontierResult, cell func(simulate.FrontierResult) string) error {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "stationary\twalk\tn\t")
	for _, r := range simulate.FrontierShares {
		fmt.Fprintf(w, "r=%g\t", r)
	}
	fmt.Fprintln(w)
	k := len(simulate.FrontierShares)
	for i, r := range results {
		if i%k == 0 {
			fmt.Fprintf(w, "%s\t%s\t%d\t", r.Pair.Stationary, r.Pair.WalkName(), r.Pair.N)
		}
		fmt.Fprintf(w, "%s\t", cell(r))
		if i%k == k-1 {
			fmt.Fprintln(w)
		}
	}
	return w.Flush()
}
func sequential(reps int, seed uint64) {
	fmt.Printf("\nEarly verdicts through the whole procedure (robust fits, looks at %v samples, 2 lifecycles/sample),\n", simulate.Looks)
	fmt.Println("stopping rule: Lan–DeMets O'Brien–Fleming-type error spending, familywise α = 0.05, no look before 60 samples after the warm-up cut or while a fit is flagged.")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "case\tleak\tno leak\tinconcl\tfamilywise false\tcover at stop\tmedian stop (samples)\t")
	last := simulate.Looks[len(simulate.Looks)-1]
	rule := stats.StopRule{PlannedLifecycles: 2 * float64(last-1)}
	for _, c := range simulate.SequentialSuite() {
		r := simulate.RunSequential(c, simulate.Robust(), rule, simulate.Looks, reps, seed)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Case, f2(frac(r.Leak, reps)), f2(frac(r.NoLeak, reps)), f2(frac(r.Undecided, reps)), f2(r.FalseRate), f2(r.CoverAtStop), r.MedianStop)
	}
	_ = w.Flush()
}
func controlled(reps int, seed uint64) {
	const leak = 256
	fmt.Printf("\nControlled verdict (stats.CompareFits, margin 0): a %d B/lifecycle leak against its control, and A/A pairs;\n", leak)
	fmt.Printf("native-heap noise of the real runs (AR(1) φ=%.2f, innovations %.0f KB/sample, 1 lifecycle/sample), %d pairs per length.\n", simulate.NativePhi, simulate.NativeSD/1e3, reps)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "lifecycles\tdetected\tA/A false leak\tcoverage of the difference\t")
	for _, L := range []int{100, 200, 300, 500, 1000} {
		r := simulate.RunControlled(leak, L, reps, seed)
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t\n", L, f2(frac(r.Detected, reps)), f2(frac(r.AAFalse, reps)), f2(r.Cover))
	}
	_ = w.Flush()
}
func paired(reps int, seed uint64) {
	const leak = 272 // malloc(256) as glibc counts it
	fmt.Printf("\nPaired controlled verdict (stats.ComparePaired: batch means, 8 batches, t with 7 df; called at %s, coverage of the 95%% interval): a difference of %d B/lifecycle, and A/A series;\n", units.FormatPercent(stats.PairedConfidence), leak)
	fmt.Printf("one sample per lifecycle, %d series per cell. Goal: coverage 0.90–0.98, A/A false leak ≤ 0.05.\n", reps)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "noise of the difference\tlifecycles\tdetected\tA/A false leak\tcoverage\t")
	for _, c := range simulate.PairedSuite() {
		for _, L := range []int{500, 1000, 1536} {
			r := simulate.RunPaired(c, leak, L, reps, seed)
			fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t\n", c.Name, L, f2(frac(r.Detected, reps)), f2(frac(r.AAFalse, reps)), f2(r.Cover))
		}
	}
	_ = w.Flush()
}
