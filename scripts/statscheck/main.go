// Command statscheck runs the seeded simulation suite of stats
// (stats/simulate) and prints, per case, the coverage of the 95%
// per-lifecycle intervals and the false-call rate of the verdict, for the
// original procedure (legacy) and the one of issue 11 (robust); then the
// early-stopping rule through the whole procedure, the early stop against
// the full run (through the analysis real runs take: -early), the
// controlled verdict, and, with -real, the across-seed spread of slopes on
// real runs.
//
//	go run ./scripts/statscheck            # full suite
//	go run ./scripts/statscheck -early     # the early-stop table only, 200 runs per case
//	go run ./scripts/statscheck -quick     # fewer repetitions
//	go run ./scripts/statscheck -case 'random walk \+ noise' -reps 2000
//	                                       # those cells only, coverage with its Monte Carlo interval
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
	"github.com/rocksleak/rocksleak/stats/simulate"
)

func main() {
	quick := flag.Bool("quick", false, "100 repetitions per case instead of 400 (the same sizes n)")
	reps := flag.Int("reps", 0, "repetitions per case (default 400, -quick 100)")
	seed := flag.Uint64("seed", 11, "seed of every simulation")
	real := flag.String("real", "", "glob of reliability run directories (each with seed-*/samples.csv) for the across-seed spread")
	sim := flag.Bool("sim", true, "run the simulation suite (-sim=false with -real: real runs only)")
	only := flag.String("case", "", "regular expression: run only the per-case cells whose name matches (no early, controlled or paired tables); with -frontier, only the frontier rows whose name (\"white noise / random walk, n=300\") matches, each cell's coverage then also printed to three places")
	residuals := flag.String("residuals", "", "samples.csv of a rocksleak run: print only the real-residual table (its fixed model's residuals, block-bootstrapped, plus known slopes)")
	pairedTimer := flag.String("paired-timer", "", "glob of reliability run directories of a synthetic-leak calibration with --replicate: print only the paired verdict's table (timer backlog as a regressor, and batch means before it) at lengths up to theirs")
	earlyOnly := flag.Bool("early", false, "print only the early-stop table (rocksleak run --until-verdict's calls against the full run's, through analysis.Sequential and analysis.Decide; -reps runs per case, default 200)")
	workers := flag.Int("workers", 0, "goroutines for the early-stop table (default GOMAXPROCS)")
	frontierOnly := flag.Bool("frontier", false, "print only the coverage frontier tables (5 × reps series of each model per cell, the tool's coverage on reps of them)")
	flag.Parse()
	if *residuals != "" {
		n := *reps
		if n == 0 {
			n = defaultReps(*quick)
		}
		if err := bootstrap(*residuals, n, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "statscheck:", err)
			os.Exit(1)
		}
		return
	}
	if *pairedTimer != "" {
		dirs, err := filepath.Glob(*pairedTimer)
		if err == nil && len(dirs) == 0 {
			err = fmt.Errorf("-paired-timer: %q matches no directory", *pairedTimer)
		}
		if err == nil {
			err = realPairedTimer(dirs)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "statscheck:", err)
			os.Exit(1)
		}
		return
	}
	if *earlyOnly {
		n := *reps
		if n == 0 {
			n = defaultReps(*quick) / 2
		}
		start := time.Now()
		if err := printEarlyStop(n, *seed, *workers); err != nil {
			fmt.Fprintln(os.Stderr, "statscheck:", err)
			os.Exit(1)
		}
		fmt.Printf("\nstatscheck took %s\n", time.Since(start).Round(time.Second))
		return
	}
	if *frontierOnly {
		n := *reps
		if n == 0 {
			n = defaultReps(*quick)
		}
		var rows *regexp.Regexp
		if *only != "" {
			re, err := regexp.Compile(*only)
			if err == nil && len(frontierPairs(re)) == 0 {
				err = fmt.Errorf("%q matches no frontier row (see the first three columns of its tables)", *only)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "statscheck: -case:", err)
				os.Exit(2)
			}
			rows = re
		}
		start := time.Now()
		if err := frontier(5*n, n, *seed, rows); err != nil {
			fmt.Fprintln(os.Stderr, "statscheck:", err)
			os.Exit(1)
		}
		fmt.Printf("\nstatscheck took %s\n", time.Since(start).Round(time.Second))
		return
	}
	cases := allCases()
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err == nil {
			if cases = selectCases(cases, re); len(cases) == 0 {
				err = fmt.Errorf("%q matches no case (see the first column of the full table)", *only)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "statscheck: -case:", err)
			os.Exit(2)
		}
	}
	if err := run(*quick, *sim, *reps, *seed, *real, cases, *only != ""); err != nil {
		fmt.Fprintln(os.Stderr, "statscheck:", err)
		os.Exit(1)
	}
}

// defaultReps is the repetitions per cell without -reps: 400, or 100 with
// -quick.
func defaultReps(quick bool) int {
	if quick {
		return 100
	}
	return 400
}

// caseSizes are the series lengths n of the per-case table.
var caseSizes = []int{40, 100, 300, 700}

// allCases are the per-case table's rows: simulate.Suite at caseSizes, then
// the bounded-growth family (simulate.PlateauSuite, its own sizes).
func allCases() []simulate.Case {
	return append(simulate.Suite(caseSizes), simulate.PlateauSuite()...)
}

// selectCases keeps the cases whose name filter matches (all of them when
// filter is nil).
func selectCases(cases []simulate.Case, filter *regexp.Regexp) []simulate.Case {
	if filter == nil {
		return cases
	}
	var out []simulate.Case
	for _, c := range cases {
		if filter.MatchString(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// run prints the per-case table for cases and, unless only (a -case
// selection) is set, the early, controlled and paired tables and the real
// runs' spreads.
func run(quick, sim bool, reps int, seed uint64, real string, cases []simulate.Case, only bool) error {
	if reps == 0 {
		reps = defaultReps(quick)
	}
	start := time.Now()
	if !sim {
		if real == "" {
			return fmt.Errorf("-sim=false needs -real")
		}
		return spreads(real)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Printf("Per-case coverage of the 95%% per-lifecycle interval and verdict rates, %d seeded runs each (seed %d).\n", reps, seed)
	fmt.Println("false = verdicts that are wrong for the case (leak on a benign series; no leak on a leak; either at a floor).")
	fmt.Println("cut nat, cut RSS = share of runs whose fit cut a warm-up (robust); outside the warm-up cases every cut is a false one.")
	fmt.Fprintln(w, "case\tlegacy cov nat\tcov RSS\tfalse\t|\trobust cov nat\tcov RSS\tleak\tno leak\tinconcl\tfalse\tcut nat\tcut RSS\t")
	minCov, maxCov, maxFalse := 1.0, 0.0, 0.0
	var minCase, maxCase, falseCase string
	var precise []string
	for _, c := range cases {
		a := simulate.Run(c, simulate.Legacy(), reps, seed)
		b := simulate.Run(c, simulate.Robust(), reps, seed)
		for _, v := range []float64{b.CoverNative, b.CoverRSS} {
			if c.WarmupBiased || math.IsNaN(v) {
				continue
			}
			if v < minCov {
				minCov, minCase = v, c.Name
			}
			if v > maxCov {
				maxCov, maxCase = v, c.Name
			}
		}
		if b.FalseRate > maxFalse || falseCase == "" {
			maxFalse, falseCase = b.FalseRate, c.Name
		}
		precise = append(precise, fmt.Sprintf("  %s: native heap %s, RSS %s", c.Name, wilson(b.CoverNative, b.ValidNative), wilson(b.CoverRSS, b.ValidRSS)))
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t|\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name,
			f2(a.CoverNative), f2(a.CoverRSS), f2(a.FalseRate),
			f2(b.CoverNative), f2(b.CoverRSS), f2(frac(b.Leak, reps)), f2(frac(b.NoLeak, reps)), f2(frac(b.Undecided, reps)), f2(b.FalseRate),
			f2(frac(b.CutNative, reps)), f2(frac(b.CutRSS, reps)))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("robust: coverage %.2f (%s) to %.2f (%s) outside warm-up cases (goal 0.90–0.98); largest false-call rate %.2f (%s) (goal ≤ 0.05)\n",
		minCov, minCase, maxCov, maxCase, maxFalse, falseCase)
	if only {
		fmt.Printf("\nRobust coverage to three places, with its Monte Carlo 95%% interval (Wilson, %d runs):\n", reps)
		for _, p := range precise {
			fmt.Println(p)
		}
		fmt.Printf("\nstatscheck took %s\n", time.Since(start).Round(time.Second))
		return nil
	}
	if err := frontier(5*reps, reps, seed, nil); err != nil {
		return err
	}
	sequential(reps, seed)
	if err := printEarlyStop(max(1, reps/2), seed, 0); err != nil {
		return err
	}
	controlled(reps, seed)
	paired(reps, seed)
	if real != "" {
		if err := spreads(real); err != nil {
			return err
		}
	}
	fmt.Printf("\nstatscheck took %s\n", time.Since(start).Round(time.Second))
	return nil
}

func spreads(glob string) error {
	dirs, err := filepath.Glob(glob)
	if err != nil {
		return err
	}
	sort.Strings(dirs)
	fmt.Println("\nAcross-seed spread of the per-lifecycle slope on real runs: SD of the seeds' slopes / median reported SE (goal 0.75–1.33 for both signals; ratios to 3 places, to be read against those edges).")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Println("fit: total = Y ~ 1 + lifecycles (the growth per lifecycle the verdict reads); +failed closes = the lifecycle slope of Y ~ 1 + lifecycles + failed closes.")
	fmt.Println("legacy = Cochrane–Orcutt FGLS + Newey–West; tool = what the tool uses (analysis.OptionsFor): RegressCalibrated (batch means where the")
	fmt.Println("likelihood region does not widen RegressRobust's GLS profile-likelihood interval) for the native heap, RegressRobustBatch (the wider of that")
	fmt.Println("interval and a batch-means one) for RSS; profile-only = RegressRobust for both (the native heap's interval before the calibrated one).")
	fmt.Println("RSS is the code's RSS the verdicts read (RSS less the instrument's runtime, runtime_bytes, where samples.csv has it),")
	fmt.Println("with restored records as a regressor (samples.csv without the column: none); the start sample is left out, as the tool does.")
	fmt.Println("rw = seeds whose error model allows a random walk (FlagRandomWalkModelled); flagged = seeds with a blocking flag (tool).")
	fmt.Fprintln(w, "run\tmodel\tsignal\tfit\tseeds\tmean slope\tSD\t|\tlegacy SE\tratio\t|\ttool SE\tratio\t|\tprofile-only SE\tratio\trw\tflagged\t")
	for _, d := range dirs {
		seeds, err := loadRun(d)
		if err != nil {
			return err
		}
		if len(seeds) == 0 {
			continue
		}
		var models []string
		for m := range seeds[0] {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			for _, sig := range []string{"native_heap", "rss"} {
				for _, total := range []bool{true, false} {
					lo := stats.DefaultOptions()
					po := simulate.ProfileOnly().Options // p: the profile-likelihood interval alone
					a, err := simulate.SeedSpread(filepath.Base(d), seeds, m, sig, total, lo)
					if err != nil {
						return err
					}
					p, err := simulate.SeedSpread(filepath.Base(d), seeds, m, sig, total, po)
					if err != nil {
						return err
					}
					to := simulate.Robust().Options // b: the tool's (per signal)
					if sig == "rss" {
						to = simulate.Robust().RSSOptions()
					}
					b, err := simulate.SeedSpread(filepath.Base(d), seeds, m, sig, total, to)
					if err != nil {
						return err
					}
					fit := "total"
					if !total {
						fit = "+failed closes"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%.0f\t%.0f\t|\t%.0f\t%.3f\t|\t%.0f\t%.3f\t|\t%.0f\t%.3f\t%d\t%d\t\n", b.Run, m, sig, fit, b.Seeds, b.MeanSlope, b.SD, a.MedianSE, a.Ratio, b.MedianSE, b.Ratio, p.MedianSE, p.Ratio, b.RandomWalk, b.Flagged)
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := realVerdicts(dirs); err != nil {
		return err
	}
	if err := realControlled(dirs); err != nil {
		return err
	}
	if err := realPaired(dirs); err != nil {
		return err
	}
	return realPairedTimer(dirs)
}

// realControlled injects a 256 B/lifecycle leak into real fixed-model
// native-heap series and judges it against another seed's series.
func realControlled(dirs []string) error {
	const leak = 256
	fmt.Printf("\nControlled verdict on real native-heap series: seed i's fixed model + %d B/lifecycle against seed i+1's fixed model (cyclic), and the A/A pair without it.\n", leak)
	fmt.Println("τ = between-seed SD of the slope beyond the reported SEs, √(SD² − median SE²), from the same seeds (CompareOptions.BetweenRunSD).")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "run\tlifecycles\tpairs\t|\tτ = 0: detected\tA/A false\t|\tτ\tdetected\tA/A false\t")
	opt := simulate.Robust().Options
	for _, d := range dirs {
		seeds, err := loadRun(d)
		if err != nil {
			return err
		}
		if len(seeds) < 2 {
			continue
		}
		if _, ok := seeds[0]["fixed"]; !ok {
			continue
		}
		sp, err := simulate.SeedSpread(filepath.Base(d), seeds, "fixed", "native_heap", true, opt)
		if err != nil {
			return err
		}
		tau := math.Sqrt(math.Max(0, sp.SD*sp.SD-sp.MedianSE*sp.MedianSE))
		maxL := seeds[0]["fixed"].Lifecycles[len(seeds[0]["fixed"].Lifecycles)-1]
		for _, L := range []float64{250, 500, 1000, 1500} {
			if L > maxL {
				continue
			}
			d0, a0, n, err := simulate.RealControlled(seeds, "fixed", leak, L, opt, stats.CompareOptions{})
			if err != nil {
				return err
			}
			d1, a1, _, err := simulate.RealControlled(seeds, "fixed", leak, L, opt, stats.CompareOptions{BetweenRunSD: tau, BetweenRunDF: float64(len(seeds) - 1)})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\t%.0f\t%d\t|\t%d/%d\t%d/%d\t|\t%.0f\t%d/%d\t%d/%d\t\n", filepath.Base(d), L, n, d0, n, a0, n, tau, d1, n, a1, n)
		}
	}
	return w.Flush()
}

// wilson formats a share p of n runs with its Wilson score 95% interval.
func wilson(p float64, n int) string {
	if math.IsNaN(p) || n == 0 {
		return "—"
	}
	lo, hi := wilsonInterval(p, n)
	return fmt.Sprintf("%.3f [%.3f, %.3f]", p, lo, hi)
}

// wilsonInterval is the Wilson score 95% interval of a binomial share p
// observed in n trials: the proportions π with (p − π)² ≤ z²·π(1 − π)/n,
// z the normal 97.5% quantile.
func wilsonInterval(p float64, n int) (lo, hi float64) {
	const z = 1.959964
	nf := float64(n)
	mid := (p + z*z/(2*nf)) / (1 + z*z/nf)
	half := z / (1 + z*z/nf) * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	return mid - half, mid + half
}

func frac(a, b int) float64 { return float64(a) / float64(b) }

func f3(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.3f", v)
}

func f2(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.2f", v)
}

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

// realVerdicts tallies the verdicts of each model over the seeds of each run.
func realVerdicts(dirs []string) error {
	fmt.Println("\nVerdicts on real runs (total fits of native heap and RSS, default floors stats.DefaultNativeFloor and DefaultRSSFloor, 2 KiB and 12 KiB per lifecycle): leak / no leak / inconclusive.")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "run\tmodel\tlegacy (Decide)\trobust (DecideSignals)\t")
	var settles []string
	for _, d := range dirs {
		seeds, err := loadRun(d)
		if err != nil {
			return err
		}
		if len(seeds) == 0 {
			continue
		}
		var models []string
		for m := range seeds[0] {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			a, err := simulate.RealVerdicts(seeds, m, simulate.Legacy())
			if err != nil {
				return err
			}
			b, err := simulate.RealVerdicts(seeds, m, simulate.Robust())
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\t%s\t%d / %d / %d\t%d / %d / %d\t\n", filepath.Base(d), m, a.Leak, a.NoLeak, a.Inconclusive, b.Leak, b.NoLeak, b.Inconclusive)
			if b.Settle != "" {
				settles = append(settles, fmt.Sprintf("  %s %s: %s", filepath.Base(d), m, b.Settle))
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Println("An inconclusive robust verdict per model, with what would settle it:")
	for _, s := range settles {
		fmt.Println(s)
	}
	return nil
}

// realPaired judges, in every run directory whose seeds hold a model X and
// X+synthetic (a calibration run), the synthetic model against its control
// at each seed, over the first L lifecycles for several L: by the paired
// difference series (analysis.PairedInput, stats.ComparePaired, what the tool
// reported before it took out RocksDB's timer backlog: see realPairedTimer)
// and by the difference of the two fits (stats.CompareFits), native
// heap. A replicate of the control (seed-N/replicate, written by rocksleak
// reliability --replicate) gives the A/A pair by the same two methods.
func realPaired(dirs []string) error {
	var header bool
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, d := range dirs {
		seedDirs, err := filepath.Glob(filepath.Join(d, "seed-*"))
		if err != nil {
			return err
		}
		sort.Slice(seedDirs, func(i, j int) bool { return seedNum(seedDirs[i]) < seedNum(seedDirs[j]) })
		type row struct {
			paired, paired95, fits, aaPaired, aaPaired95, aaFits, n, aa int
			cover, coverFits                                            int
			half, est                                                   []float64
		}
		rows := map[int64]*row{}
		var lens []int64
		for _, sd := range seedDirs {
			cs, ok, err := readCalibrationSeed(sd)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			model, control, samples, rep, known := cs.model, cs.control, cs.samples, cs.rep, cs.known
			if !header {
				fmt.Printf("\nControlled verdicts on real calibration runs, native heap: %s against %s at each seed, over the first L lifecycles.\n", model, control)
				fmt.Println("paired = slope of the series model − control at shared lifecycle counts (stats.ComparePaired); fits = difference of the two fits (stats.CompareFits).")
				fmt.Println("A/A = the control against its replicate run (same scenario and seed, run after it), when present.")
				fmt.Println("cover = 95% intervals containing the leak as the allocator counts it (glibc: malloc's chunk, n + 8 rounded up to 16 bytes; 272 B for 256).")
				fmt.Printf("paired: leak and false at the verdict's level (stats.PairedConfidence, %s) and, for comparison, at 95%%; half-width of the 95%% interval.\n", units.FormatPercent(stats.PairedConfidence))
				fmt.Fprintln(w, "run\tL\tseeds\tpaired: leak\tat 95%\tcover\tmean ± sd\tmedian half-width\t|\tfits: leak\tcover\t|\tA/A seeds\tpaired false\tat 95%\tfits false\t")
				header = true
			}
			maxL := samples[control][len(samples[control])-1].Lifecycles
			if lens == nil {
				for _, L := range []int64{512, 1024, 1536, 2048, 3072, 4096} {
					if L <= maxL {
						lens = append(lens, L)
					}
				}
			}
			for _, L := range lens {
				r := rows[L]
				if r == nil {
					r = &row{}
					rows[L] = r
				}
				p, p95, f, err := pairVerdicts(cut(samples[model], L), cut(samples[control], L))
				if err != nil {
					return err
				}
				r.n++
				if p.Verdict == stats.VerdictLeak {
					r.paired++
				}
				if p95.Verdict == stats.VerdictLeak {
					r.paired95++
				}
				if f.Verdict == stats.VerdictLeak {
					r.fits++
				}
				lo, hi, ok := p.Estimate.TInterval(0.95)
				r.half = append(r.half, (hi-lo)/2)
				r.est = append(r.est, p.Estimate.Value)
				if ok && lo <= known && known <= hi {
					r.cover++
				}
				if f.Estimate.Valid && f.Estimate.Low <= known && known <= f.Estimate.High {
					r.coverFits++
				}
				if rep != nil {
					p, p95, f, err := pairVerdicts(cut(rep, L), cut(samples[control], L))
					if err != nil {
						return err
					}
					r.aa++
					if p.Verdict == stats.VerdictLeak {
						r.aaPaired++
					}
					if p95.Verdict == stats.VerdictLeak {
						r.aaPaired95++
					}
					if f.Verdict == stats.VerdictLeak {
						r.aaFits++
					}
				}
			}
		}
		for _, L := range lens {
			r := rows[L]
			if r == nil || r.n == 0 {
				continue
			}
			aaP, aaP95, aaF := "—", "—", "—"
			if r.aa > 0 {
				aaP, aaP95, aaF = fmt.Sprintf("%d/%d", r.aaPaired, r.aa), fmt.Sprintf("%d/%d", r.aaPaired95, r.aa), fmt.Sprintf("%d/%d", r.aaFits, r.aa)
			}
			m, sd := stat.MeanStdDev(r.est, nil)
			fmt.Fprintf(w, "%s\t%d\t%d\t%d/%d\t%d/%d\t%d/%d\t%.0f ± %.0f\t%.0f\t|\t%d/%d\t%d/%d\t|\t%d\t%s\t%s\t%s\t\n", filepath.Base(d), L, r.n, r.paired, r.n, r.paired95, r.n, r.cover, r.n,
				m, sd, stats.Median(r.half), r.fits, r.n, r.coverFits, r.n, r.aa, aaP, aaP95, aaF)
		}
	}
	return w.Flush()
}

// pairVerdicts is the controlled verdict of model against control on the
// native heap: paired at the tool's level (stats.PairedConfidence), paired at
// 95% for comparison, and by the two fits.
func pairVerdicts(model, control []schema.Sample) (paired, paired95, fits stats.Comparison, err error) {
	if in, ok := analysis.PairedInput(model, control, analysis.SignalNativeHeap); ok {
		if paired, _, err = stats.ComparePaired(in, analysis.Options(), stats.CompareOptions{}); err != nil {
			return paired, paired95, fits, err
		}
		if paired95, _, err = stats.ComparePaired(in, analysis.Options(), stats.CompareOptions{Confidence: 0.95}); err != nil {
			return paired, paired95, fits, err
		}
	}
	fm, err := analysis.FitSamples(model)
	if err != nil {
		return paired, paired95, fits, err
	}
	fc, err := analysis.FitSamples(control)
	if err != nil {
		return paired, paired95, fits, err
	}
	fits = analysis.CompareSignal(*fm[analysis.SignalNativeHeap].Total, *fc[analysis.SignalNativeHeap].Total, stats.CompareOptions{})
	return paired, paired95, fits, nil
}

// chunkBytes is what the allocator counts in use for one malloc(n): under
// glibc the chunk, n plus its 8-byte size field rounded up to 16 bytes (at
// least 32); otherwise n (jemalloc's size classes include 256 and every
// power of two).
func chunkBytes(n int, a spec.Allocator) float64 {
	if a == spec.AllocatorGlibc || a == "" {
		return float64(max(32, (n+8+15)&^15))
	}
	return float64(n)
}

// cut keeps the samples up to L lifecycles.
func cut(ss []schema.Sample, L int64) []schema.Sample {
	n := 0
	for n < len(ss) && ss[n].Lifecycles <= L {
		n++
	}
	return ss[:n]
}

func seedNum(dir string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "seed-"))
	return n
}

// bootstrap prints the real-residual table (simulate.BootstrapSuite) of the
// fixed model in the samples.csv at path.
func bootstrap(path string, reps int, seed uint64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	ss, err := readSamplesCSV(f)
	f.Close()
	if err != nil {
		return err
	}
	var fixed *simulate.Series
	for i := range ss {
		if ss[i].Model == "fixed" {
			fixed = &ss[i]
		}
	}
	if fixed == nil {
		return fmt.Errorf("%s: no fixed model", path)
	}
	start := time.Now()
	fmt.Printf("Real residuals: %s's fixed model (%d samples), residuals about each signal's line after the tool's warm-up cut,\n", path, len(fixed.Lifecycles))
	fmt.Printf("resampled in circular blocks of 20 samples (native heap as levels, RSS as differences), plus a known slope; %d runs each (seed %d).\n", reps, seed)
	fmt.Println("nat > floor = native interval above its floor; RSS > 0 = RSS interval above 0; false = leak with no slope, no leak with one.")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "case\tn\tcov nat\tcov RSS\tnat > floor\tRSS > 0\tleak\tno leak\tinconcl\tfalse\t")
	for _, c := range simulate.BootstrapSuite(*fixed) {
		r, err := simulate.RunBootstrap(c, simulate.Robust(), reps, seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Name, r.N, f2(r.CoverNative), f2(r.CoverRSS),
			f2(frac(r.NativeAboveFloor, reps)), f2(frac(r.RSSAboveZero, reps)),
			f2(frac(r.Leak, reps)), f2(frac(r.NoLeak, reps)), f2(frac(r.Undecided, reps)), f2(r.FalseRate))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("\nstatscheck took %s\n", time.Since(start).Round(time.Second))
	return nil
}
