//go:build cgo

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// runOptions are the flags of "rocksleak run".
type runOptions struct {
	scenario     string
	models       string
	lifecycles   int
	duration     time.Duration
	seed         int64
	out          string
	sets         setFlags
	stateRoot    string
	untilVerdict bool
	allocator    string
	format       string
}

func parseRunFlags(stderr io.Writer, args []string) (runOptions, error) {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.scenario, "scenario", scenarios.DefaultName(), "scenario name from the catalogue, or a YAML file")
	fs.StringVar(&o.models, "models", "", "comma-separated models to run, in order (default: the scenario's, normally leaky,fixed)")
	fs.IntVar(&o.lifecycles, "lifecycles", -1, "stop each model after N lifecycles (overrides the scenario's stop condition)")
	units.DurationVar(fs, &o.duration, "duration", -1, "stop each model after this wall time (overrides the scenario's stop condition)")
	fs.Int64Var(&o.seed, "seed", -1, "seed for every random choice (default: the scenario's)")
	fs.StringVar(&o.out, "out", "", "output directory (default results/runs/<UTC time>-<scenario>)")
	fs.Var(&o.sets, "set", "override one scenario field, key=value (repeatable)")
	fs.StringVar(&o.allocator, "allocator", "", "C allocator of the children: glibc, jemalloc (Debian's libjemalloc2 preloaded), or glibc,jemalloc to run every model under both")
	fs.StringVar(&o.format, "format", "text", "text, or bench: also print Go benchmark lines (BenchmarkLifecycle/<scenario>/<model>) that benchstat reads")
	fs.BoolVar(&o.untilVerdict, "until-verdict", false, "stop each model as soon as its verdict is settled (sequential looks, corrected for looking repeatedly); the stop condition stays the limit")
	fs.StringVar(&o.stateRoot, "state-dir", "", "where the stores' state directories go (default: the system temp dir); removed at the end")
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, usagef("run: unexpected argument %q", fs.Arg(0))
	}
	if o.format != "text" && o.format != "bench" {
		return o, usagef("--format: %q is not one of text, bench", o.format)
	}
	if o.lifecycles != -1 && o.duration != -1 {
		return o, usagef("run: --lifecycles and --duration are alternatives; give one")
	}
	if o.lifecycles < -1 || o.lifecycles == 0 {
		return o, usagef("--lifecycles: %d must be a positive count", o.lifecycles)
	}
	if o.duration != -1 && o.duration <= 0 {
		return o, usagef("--duration: %s must be positive", o.duration)
	}
	return o, nil
}

// resolveScenario loads the scenario and applies the flags over it, then
// validates the result.
func resolveScenario(o runOptions) (scenarios.Scenario, error) {
	sc, _, err := scenarios.Load(o.scenario)
	if err != nil {
		return sc, err
	}
	for _, kv := range o.sets {
		if err := sc.Set(kv); err != nil {
			return sc, err
		}
	}
	if o.models != "" {
		if err := sc.Set("models=" + o.models); err != nil {
			return sc, err
		}
	}
	if o.allocator != "" {
		models, err := withAllocators(sc.Models, o.allocator)
		if err != nil {
			return sc, err
		}
		sc.Models = models
	}
	if o.lifecycles > 0 {
		sc.Lifecycles, sc.Duration = o.lifecycles, 0
	}
	if o.duration > 0 {
		sc.Lifecycles, sc.Duration = 0, scenarios.Duration(o.duration)
	}
	if o.seed >= 0 {
		sc.Seed = o.seed
	}
	return sc, sc.Validate()
}

func runCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	o, err := parseRunFlags(stderr, args)
	if err != nil {
		return err
	}
	sc, err := resolveScenario(o)
	if err != nil {
		return err
	}
	outDir := o.out
	if outDir == "" {
		outDir = filepath.Join("results", "runs", time.Now().UTC().Format("20060102T150405Z")+"-"+sc.Name)
	}
	if _, err := os.Stat(outDir); err == nil {
		return usagef("--out: %s already exists", outDir)
	}

	if err := harness.Preflight(sc); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rocksleak: scenario %s, models %s, %s each, seed %d\n",
		sc.Name, strings.Join(sc.Models, ","), stopOf(sc), sc.Seed)
	res, out, runErr := execute(ctx, stderr, sc, o.stateRoot, "rocksleak run "+strings.Join(args, " "), o.untilVerdict)
	if out == nil {
		return runErr
	}
	files, err := results.Render(res, out)
	if err != nil {
		return err
	}
	if err := results.WriteDir(outDir, files); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	fmt.Fprint(stdout, results.Summary(res))
	if o.format == "bench" {
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, results.BenchLines(res))
	}
	fmt.Fprintf(stdout, "\nresults: %s (report.md, result.json, samples.csv, plots)\n", outDir)
	switch {
	case out.Interrupted:
		fmt.Fprintln(stderr, "rocksleak: interrupted; the result is marked \"interrupted\": true")
		return errInterrupted
	case runErr != nil:
		return runErr
	}
	return nil
}

// execute runs a resolved scenario's models in child processes, with a
// progress display on stderr, and analyses what they sent back. A nil Output
// means nothing ran; otherwise the Result is complete, interrupted or failed,
// and the error (if any) says why.
func execute(ctx context.Context, stderr io.Writer, sc scenarios.Scenario, stateRoot, command string, untilVerdict bool) (*schema.Result, *schema.Output, error) {
	prog := newProgress(stderr, sc)
	seq := map[string]*analysis.Sequential{}
	var settled func(string, []schema.Sample) bool
	if untilVerdict {
		for _, m := range sc.Models {
			seq[m] = &analysis.Sequential{Floors: analysis.DefaultFloors(), PlannedLifecycles: float64(sc.Lifecycles),
				DurationNs: int64(sc.Duration)}
		}
		settled = func(m string, samples []schema.Sample) bool { return seq[m].Observe(samples) }
	}
	out, runErr := harness.Run(ctx, harness.Config{
		Settled:   settled,
		Scenario:  sc,
		Models:    sc.Models,
		Seed:      sc.Seed,
		StateRoot: stateRoot,
		Stderr:    stderr,
		OnEvent:   prog.event,
	})
	prog.finish()
	if out == nil {
		return nil, nil, runErr
	}
	res := schema.FromOutput(out, sc, results.BuildProvenance(sc.Seed, gitCommit, command))
	if err := analysis.Analyze(res, schema.SamplesByModel(out), analysis.DefaultFloors()); err != nil {
		return res, out, errors.Join(runErr, fmt.Errorf("analysing samples: %w", err))
	}
	for m, q := range seq {
		if run := res.Runs[m]; run != nil {
			run.Sequential = q.Outcome()
			if run.Fits != nil {
				if v := q.StopVerdict(*run.Fits[analysis.SignalNativeHeap].Total, *run.Fits[analysis.SignalRSS].Total); v != nil {
					run.Verdict = v // the stopping look's decision, not a re-fit at a naive 95%
				}
			}
		}
	}
	return res, out, runErr
}

// withAllocators runs every model under each listed allocator: "m" for glibc,
// "m@jemalloc" for jemalloc.
func withAllocators(models []string, list string) ([]string, error) {
	var allocs []spec.Allocator
	for _, name := range strings.Split(list, ",") {
		a, err := spec.ParseAllocator(name)
		if err != nil {
			return nil, usagef("--allocator: %v", err)
		}
		allocs = append(allocs, a)
	}
	var out []string
	for _, m := range models {
		base, _, _ := strings.Cut(m, "@")
		for _, a := range allocs {
			if a == spec.AllocatorGlibc {
				out = append(out, base)
			} else {
				out = append(out, base+"@"+string(a))
			}
		}
	}
	return out, nil
}
