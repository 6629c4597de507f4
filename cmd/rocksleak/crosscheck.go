package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
)

// crosscheckCmd puts the Go engine beside the JVM engine: one run of
// leaky, kafka-4.3.0, fixed and kafka-4.3.1 (the default scenario and
// workload, one seed), a preset of the run library (runScenario), then
// results.CrosscheckMarkdown. With --doc it replaces the generated part of
// that file (between results.CrossBegin and results.CrossEnd); with --result it renders an
// earlier run of the same models instead of running.
func crosscheckCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	o, result, doc, err := parseCrosscheckFlags(stderr, args)
	if err != nil {
		return err
	}
	var docText []byte
	if doc != "" {
		if docText, err = os.ReadFile(doc); err != nil {
			return usagef("--doc: %v", err)
		}
		if !results.HasCrosscheckMarkers(docText) {
			return usagef("--doc: %s lacks the markers %q and %q", doc, results.CrossBegin, results.CrossEnd)
		}
	}
	r, samples, runErr := crosscheckResult(ctx, stdout, stderr, o, result)
	if r == nil {
		return runErr
	}
	md := results.CrosscheckMarkdown(r, samples)
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, md)
	if doc != "" {
		if err := os.WriteFile(doc, results.CrosscheckDoc(docText, r, md), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nwritten into %s\n", doc)
	}
	return runErr
}

// parseCrosscheckFlags reads the flags of "rocksleak crosscheck" into the
// run options of its preset (the four models of results.CrossPairs), and
// --result and --doc.
func parseCrosscheckFlags(stderr io.Writer, args []string) (o runOptions, result, doc string, err error) {
	o = defaultRunOptions()
	fs := flag.NewFlagSet("crosscheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.lifecycles, "lifecycles", 1500, "lifecycles per model (the default scenario's own count)")
	fs.StringVar(&o.out, "out", "", "output directory (default runs/<UTC time>-crosscheck)")
	fs.StringVar(&result, "result", "", "render an earlier run's result.json (with its samples.csv beside it) instead of running")
	fs.StringVar(&doc, "doc", "", "also write the table into this Markdown file, between its crosscheck markers (e.g. docs/crosscheck.md)")
	if err := fs.Parse(args); err != nil {
		return o, "", "", fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, "", "", usagef("crosscheck: unexpected argument %q", fs.Arg(0))
	}
	if o.lifecycles < 1 {
		return o, "", "", usagef("--lifecycles: %d must be a positive count", o.lifecycles)
	}
	var models []string
	for _, p := range results.CrossPairs {
		models = append(models, p.Go, p.JVM)
	}
	// The default scenario's own workload (50 records per store and step): the JVM engine's native heap
	// leaves out the JVM's own mallocs, so both engines resolve their slopes at it (docs/jvm-engine.md).
	o.models = strings.Join(models, ",")
	return o, result, doc, nil
}

// crosscheckResult runs the preset o, or with result reads an earlier run
// and its samples; a nil result comes with the error that kept it.
func crosscheckResult(ctx context.Context, stdout, stderr io.Writer, o runOptions, result string) (*schema.Result, map[string][]schema.Sample, error) {
	if result == "" {
		if o.out == "" {
			o.out = defaultOut("", "crosscheck")
		}
		command := "rocksleak run " + strings.Join(o.presetArgs(), " ")
		fmt.Fprintf(stdout, "rocksleak crosscheck: %s\n", command)
		return runScenario(ctx, stdout, stderr, o, command)
	}
	r, err := schema.Read(result)
	if err != nil {
		return nil, nil, err
	}
	samples, err := schema.ReadSamplesCSV(filepath.Join(filepath.Dir(result), "samples.csv"))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", schema.ErrBadResult, err)
	}
	return r, samples, nil
}
