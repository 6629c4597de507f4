//go:build cgo

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocksleak/rocksleak/experiment"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

func parseRunFlags(stderr io.Writer, args []string) (runOptions, error) {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.scenario, "scenario", scenarios.DefaultName(), "scenario name from the catalogue, or a YAML file")
	fs.StringVar(&o.models, "models", "", "comma-separated models to run, in order (default: the scenario's, normally leaky,fixed); kafka-<version> (e.g. kafka-4.3.0) runs Kafka Streams' own jars in the JVM engine (make jvm builds them)")
	fs.IntVar(&o.lifecycles, "lifecycles", -1, "stop each model after N lifecycles (overrides the scenario's stop condition)")
	units.DurationVar(fs, &o.duration, "duration", -1, "stop each model after this wall time (overrides the scenario's stop condition)")
	fs.Int64Var(&o.seed, "seed", -1, "seed for every random choice (default: the scenario's)")
	fs.StringVar(&o.out, "out", "", "output directory (default runs/<UTC time>-<scenario>)")
	fs.Var(&o.sets, "set", "override one scenario field, key=value (repeatable)")
	fs.StringVar(&o.allocator, "allocator", "", "C allocator of the children: glibc, jemalloc (Debian's libjemalloc2 preloaded), or glibc,jemalloc to run every model under both")
	fs.StringVar(&o.format, "format", "text", "text; bench: also print Go benchmark lines (BenchmarkLifecycle/<scenario>/<model>) that benchstat reads; bmf: print only Bencher Metric Format JSON on stdout (the summary goes to stderr) and write bmf.json beside the result")
	fs.BoolVar(&o.untilVerdict, "until-verdict", false, "stop each model as soon as its verdict is settled (sequential looks, corrected for looking repeatedly); the stop condition stays the limit")
	fs.BoolVar(&o.profile, "profile", false, "profile each model's C heap by allocation stack from the end of the warm-up (the first 20% of the stop condition) to the end: Go engine models under jemalloc (preloaded, sampled every 2^15 bytes, dumps at both ends), kafka-<version> models with async-profiler's nativemem mode (the allocations never freed, with Java and native frames; also <model>/unfreed.html, a flame graph); writes <model>/growth.pb.gz (go tool pprof) and a \"where the growth was allocated\" section")
	fs.Int64Var(&o.profileEvery, "profile-every", 0, "with --profile, also dump the heap every K lifecycles after the warm-up (growth per interval in result.json and report.md)")
	fs.StringVar(&o.maxRSS, "max-rss", "", "stop a model's child whose RSS, watched from outside, crosses this size (e.g. 4GiB; default half the memory available at the child's start, or of the cgroup's memory.max when smaller; \"none\" for no limit); its result is marked and the run exits 1")
	fs.StringVar(&o.stateRoot, "state-dir", "", "where the stores' state directories go (default: the system temp dir); removed at the end")
	fs.StringVar(&o.app, "app", "", "run your own application instead of the scenario's workload: an app file naming its class, classpath and Kafka Streams properties (docs/your-application.md); the models are the file's Kafka versions (kafka-<version>) unless --models names them")
	fs.BoolVar(&o.noSpaceCheck, "no-space-check", false, "skip the check, before the run, that --state-dir has the space the scenario needs (to study a state disk that fills: a model that stops making progress is then stopped, see docs/faults.md)")
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, usagef("run: unexpected argument %q", fs.Arg(0))
	}
	if o.format != "text" && o.format != "bench" && o.format != "bmf" {
		return o, usagef("--format: %q is not one of text, bench, bmf", o.format)
	}
	if _, err := parseMaxRSS(o.maxRSS); err != nil {
		return o, err
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
	if o.profileEvery < 0 || (o.profileEvery > 0 && !o.profile) {
		return o, usagef("--profile-every: %d needs --profile and a positive count", o.profileEvery)
	}
	if o.profile && o.allocator != "" && o.allocator != string(spec.AllocatorJemalloc) {
		return o, usagef("--profile runs every model under jemalloc; --allocator %s contradicts it", o.allocator)
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
	if err := sc.CheckSetsUsed(o.sets); err != nil {
		return sc, err
	}
	return sc, sc.Validate()
}

func runCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	o, err := parseRunFlags(stderr, args)
	if err != nil {
		return err
	}
	_, _, err = runScenario(ctx, stdout, stderr, o, "rocksleak run "+strings.Join(args, " "))
	return err
}

// runScenario is the run library: it runs o (the flags of "rocksleak run",
// or a preset's: versions, crosscheck) and writes its directory, recording
// command as the run's command. It returns the analysed result and each
// model's samples (nil when nothing ran) and the run's error.
func runScenario(ctx context.Context, stdout, stderr io.Writer, o runOptions, command string) (*schema.Result, map[string][]schema.Sample, error) {
	sc, app, outDir, err := prepareRun(o)
	if err != nil {
		return nil, nil, err
	}
	human := stdout
	if o.format == "bmf" {
		// stdout carries the BMF document alone, for `bencher run --adapter json`.
		human = stderr
	}
	fmt.Fprintf(human, "rocksleak: scenario %s, models %s, %s each, seed %d\n",
		sc.Name, strings.Join(sc.Models, ","), stopOf(sc), sc.Seed)
	maxRSS, _ := parseMaxRSS(o.maxRSS)
	var prof *harness.Profile
	if o.profile {
		dir, err := profileDir(outDir)
		if err != nil {
			return nil, nil, err
		}
		defer os.RemoveAll(dir)
		prof = &harness.Profile{Dir: dir, Every: o.profileEvery}
	}
	res, out, runErr := experiment.Run(ctx, experiment.Options{Scenario: sc, StateRoot: o.stateRoot,
		Command: command, Commit: gitCommit, UntilVerdict: o.untilVerdict,
		MaxRSS: maxRSS, Profile: prof, Stderr: stderr, App: app})
	if out == nil {
		return nil, nil, runErr
	}
	if err := writeRun(stdout, human, o.format, outDir, res, out, prof); err != nil {
		return nil, nil, err
	}
	switch {
	case out.Interrupted:
		fmt.Fprintln(stderr, "rocksleak: interrupted; the result is marked \"interrupted\": true")
		return res, schema.SamplesByModel(out), errInterrupted
	case runErr != nil:
		return res, schema.SamplesByModel(out), runErr
	case len(res.Errors) > 0:
		// A storage fault or a state directory left behind, said in the
		// summary's first lines: the run is failed whatever its verdict.
		return res, schema.SamplesByModel(out), errQuiet
	}
	return res, schema.SamplesByModel(out), nil
}

// prepareRun resolves o's scenario and output directory and checks, before
// any work, that the run can go there and the engines can run it. With --app it also loads the application
// (loadApp), which names the scenario.
func prepareRun(o runOptions) (scenarios.Scenario, *harness.App, string, error) {
	sc, err := resolveScenario(o)
	if err != nil {
		return sc, nil, "", err
	}
	app, err := loadApp(o, &sc)
	if err != nil {
		return sc, nil, "", err
	}
	if err := checkProfileEvery(o, sc.Models); err != nil {
		return sc, nil, "", err
	}
	outDir := o.out
	if outDir == "" {
		outDir = defaultOut("", sc.Name)
	}
	if _, err := os.Stat(outDir); err == nil {
		return sc, nil, "", usagef("--out: %s already exists", outDir)
	}
	if err := preflightDirs(outDir, o.stateRoot, sc, o.noSpaceCheck); err != nil {
		return sc, nil, "", err
	}
	return sc, app, outDir, harness.Preflight(sc)
}

// profileDir makes the directory the heap dumps go to until the run
// directory is written whole at the end (results.WriteDir): a sibling of
// outDir. The caller removes it.
func profileDir(outDir string) (string, error) {
	abs, err := filepath.Abs(outDir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".profile-")
}

// writeRun writes the run directory (with the heap profiles and, for
// --format bmf, bmf.json) and prints the summary, benchmark lines or BMF.
func writeRun(stdout, human io.Writer, format, outDir string, res *schema.Result, out *schema.Output, prof *harness.Profile) error {
	files, err := results.Render(res, out)
	if err != nil {
		return err
	}
	if prof != nil {
		if err := results.AddDir(files, prof.Dir); err != nil {
			return fmt.Errorf("collecting the heap profiles: %w", err)
		}
	}
	var bmf []byte
	if format == "bmf" {
		if bmf, err = results.BMFJSON(res); err != nil {
			return err
		}
		files["bmf.json"] = bmf
	}
	if err := results.WriteDir(outDir, files); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	if format == "bmf" {
		if _, err := stdout.Write(bmf); err != nil {
			return err
		}
	}
	fmt.Fprint(human, results.Summary(res))
	if format == "bench" {
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, results.BenchLines(res))
	}
	fmt.Fprintf(human, "\nresults: %s (report.md, result.json, samples.csv, plots)\n", outDir)
	return nil
}

// parseMaxRSS reads --max-rss: "" is the guard's default (0), "none" no
// limit (-1), else a size.
func parseMaxRSS(s string) (int64, error) {
	switch s {
	case "":
		return 0, nil
	case "none":
		return -1, nil
	}
	b, err := units.ParseBytes(s)
	if err != nil || b <= 0 {
		return 0, usagef("--max-rss: %q is not a positive size such as 4GiB, or \"none\"", s)
	}
	return b, nil
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
