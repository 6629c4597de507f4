// Benchtable prints the summary table of `make bench` from the raw output of
// `go test -bench` (scripts/bench.sh). Every number in the table comes from
// the one file it reads, so the table and the raw output are the same run.
//
// Usage:
//
//	benchtable [-goal RATIO] [FILE]
//
// FILE is the raw benchmark output (standard input when absent). The table has:
//
//   - the store lifecycle, per variant (BenchmarkLifecycle/bare, harness-fixed,
//     harness-leaky): median time per lifecycle over the counts with the
//     largest deviation from it, the ratio to bare, lifecycles/s, CPU time, the
//     native heap and the ledger objects left behind per lifecycle, and the
//     time spent in the harness's sample;
//   - the side-by-side ratio (BenchmarkLifecycle/paired, one bare and one
//     harness-fixed lifecycle per iteration): harness/bare wall and CPU, median
//     and range over the counts, and where the difference goes;
//   - the verdict on the goal: harness-fixed within -goal (default 1.10) times
//     bare, judged on the paired wall ratio when there is one;
//   - the cost of one harness sample (BenchmarkSampleCost/open=k) and of its
//     parts, and of Sampler.Read alone (measure's BenchmarkSample).
//
// Times are medians of the counts of each benchmark. Bytes scale by 1024.
// A missing benchmark leaves its rows out; a warning says when there are too
// few counts for a median to mean much.
//
// Exit status: 0 success (whether or not the goal is met); 1 the input cannot
// be read or holds no BenchmarkLifecycle result; 2 bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

var errUsage = errors.New("usage")

func main() {
	if err := run(os.Stdin, os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "benchtable: %v\n", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	goal := fs.Float64("goal", 1.10, "the largest acceptable harness-fixed/bare time ratio")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("%w: at most one input file, have %d", errUsage, fs.NArg())
	}
	if *goal <= 0 {
		return fmt.Errorf("%w: -goal must be positive, have %g", errUsage, *goal)
	}
	in, name := stdin, "standard input"
	if fs.NArg() == 1 {
		name = fs.Arg(0)
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	results, err := Parse(in)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	t, err := Compute(results, *goal)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	_, err = io.WriteString(stdout, Render(t))
	return err
}
