package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
)

// reportCmd re-renders report.md and the plots from a result.json (and the
// samples.csv beside it, for the plots) and prints the summary.
func reportCmd(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("out", "", "directory for report.md and the plots (default: the result's directory)")
	format := fs.String("format", "text", "text: re-render report.md and the plots and print the summary; bmf: print the result as Bencher Metric Format JSON on stdout and write nothing")
	reanalyze := fs.Bool("reanalyze", false, "recompute fits, verdicts and comparisons from samples.csv with this rocksleak's statistics and floors, and rewrite result.json")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() != 1 {
		return usagef("report takes one RESULT.json")
	}
	if *format != "text" && *format != "bmf" {
		return usagef("--format: %q is not one of text, bmf", *format)
	}
	path := fs.Arg(0)
	r, err := schema.Read(path)
	if err != nil {
		return err
	}
	if *format == "bmf" {
		if *reanalyze {
			return usagef("report: --reanalyze and --format bmf are alternatives")
		}
		return writeBMF(stdout, r)
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	samples, err := schema.ReadSamplesCSV(filepath.Join(filepath.Dir(path), "samples.csv"))
	if *reanalyze {
		if err != nil {
			return err
		}
		if err := reanalyzeResult(dir, r, samples); err != nil {
			return err
		}
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, "report.md"), results.ReportMarkdown(r)); err != nil {
		return err
	}
	switch {
	case err == nil:
		if err := writePlots(dir, r, samples); err != nil {
			return err
		}
	default:
		fmt.Fprintf(stderr, "rocksleak: no plots: %v\n", err)
	}
	fmt.Fprint(stdout, results.Summary(r))
	fmt.Fprintf(stdout, "\nreport: %s\n", filepath.Join(dir, "report.md"))
	return nil
}

// writeBMF prints r as Bencher Metric Format JSON on stdout.
func writeBMF(stdout io.Writer, r *schema.Result) error {
	js, err := results.BMFJSON(r)
	if err != nil {
		return err
	}
	_, err = stdout.Write(js)
	return err
}

// reanalyzeResult recomputes r's fits, verdicts and comparisons from samples
// with this rocksleak's statistics and default floors, and rewrites
// dir/result.json.
func reanalyzeResult(dir string, r *schema.Result, samples map[string][]schema.Sample) error {
	if err := analysis.Analyze(r, samples, analysis.DefaultFloors()); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, "result.json"), append(js, '\n'))
}

// writePlots writes r's plots into dir; a result with no samples has none and
// is not an error.
func writePlots(dir string, r *schema.Result, samples map[string][]schema.Sample) error {
	plots, err := results.Plots(r, samples)
	if err != nil && !errors.Is(err, results.ErrNoSamples) {
		return err
	}
	for name, b := range plots {
		if err := results.WriteFileAtomic(filepath.Join(dir, name), b); err != nil {
			return err
		}
	}
	return nil
}

// compareCmd compares two results model by model.
func compareCmd(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	md := fs.Bool("md", false, "print Markdown instead of text")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() != 2 {
		return usagef("compare takes two result files: A.json B.json")
	}
	a, err := schema.Read(fs.Arg(0))
	if err != nil {
		return err
	}
	b, err := schema.Read(fs.Arg(1))
	if err != nil {
		return err
	}
	if *md {
		out, err := results.CompareMarkdown(a, b)
		if err != nil {
			return compareErr(err)
		}
		_, err = stdout.Write(out)
		return err
	}
	out, err := results.CompareText(a, b)
	if err != nil {
		return compareErr(err)
	}
	_, err = fmt.Fprint(stdout, out)
	return err
}

func compareErr(err error) error {
	if errors.Is(err, results.ErrNothingToCompare) {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return err
}
