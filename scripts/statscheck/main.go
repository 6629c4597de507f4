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
	"text/tabwriter"
	"time"

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
		if err := pairedTimerTable(*pairedTimer); err != nil {
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
		rows, err := frontierRows(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "statscheck: -case:", err)
			os.Exit(2)
		}
		start := time.Now()
		if err := frontier(5*n, n, *seed, rows); err != nil {
			fmt.Fprintln(os.Stderr, "statscheck:", err)
			os.Exit(1)
		}
		fmt.Printf("\nstatscheck took %s\n", time.Since(start).Round(time.Second))
		return
	}
	cases, err := casesMatching(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "statscheck: -case:", err)
		os.Exit(2)
	}
	if err := run(*quick, *sim, *reps, *seed, *real, cases, *only != ""); err != nil {
		fmt.Fprintln(os.Stderr, "statscheck:", err)
		os.Exit(1)
	}
}

// pairedTimerTable prints the paired verdict's table for the reliability run
// directories glob matches; a glob matching none is an error.
func pairedTimerTable(glob string) error {
	dirs, err := filepath.Glob(glob)
	if err == nil && len(dirs) == 0 {
		err = fmt.Errorf("-paired-timer: %q matches no directory", glob)
	}
	if err != nil {
		return err
	}
	return realPairedTimer(dirs)
}

// frontierRows is -case's expression for -frontier: nil for "" (every row),
// an error when it does not compile or matches no frontier row.
func frontierRows(only string) (*regexp.Regexp, error) {
	if only == "" {
		return nil, nil
	}
	re, err := regexp.Compile(only)
	if err == nil && len(frontierPairs(re)) == 0 {
		err = fmt.Errorf("%q matches no frontier row (see the first three columns of its tables)", only)
	}
	if err != nil {
		return nil, err
	}
	return re, nil
}

// casesMatching is the simulation cases -case selects: all of them for "",
// an error when it does not compile or matches no case.
func casesMatching(only string) ([]simulate.Case, error) {
	cases := allCases()
	if only == "" {
		return cases, nil
	}
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, err
	}
	if cases = selectCases(cases, re); len(cases) == 0 {
		return nil, fmt.Errorf("%q matches no case (see the first column of the full table)", only)
	}
	return cases, nil
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
