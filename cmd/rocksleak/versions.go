package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocksleak/rocksleak/engine/jvm/kafkaversions"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
)

// versionsCmd answers "which Kafka versions leak, and how much": one run of
// the JVM engine over the versions of engine/jvm/kafkaversions/versions.tsv (or a
// --versions subset), oldest first, then the versions table
// (results.VersionsText). It is a preset of the run library (runScenario):
// "rocksleak run --models kafka-<v>,..." with the table added, so the run
// writes its usual directory, plus versions.md. With --result it
// re-renders the table of an earlier run.
func versionsCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	o, result, list, err := parseVersionsFlags(stderr, args)
	if err != nil {
		return err
	}
	if result != "" {
		r, err := schema.Read(result)
		if err != nil {
			return err
		}
		samples, err := schema.ReadSamplesCSV(filepath.Join(filepath.Dir(result), "samples.csv"))
		if err != nil {
			samples = nil // the rows are then judged on the difference of the fits
		}
		if len(results.VersionRows(r, samples)) == 0 {
			return usagef("--result: %s has no kafka-<version> model", result)
		}
		fmt.Fprint(stdout, results.VersionsText(r, samples))
		return nil
	}
	models, err := versionModels(list)
	if err != nil {
		return err
	}
	o.models = strings.Join(models, ",")
	if o.out == "" {
		o.out = defaultOut("", "versions")
	}
	command := "rocksleak run " + strings.Join(o.presetArgs(), " ")
	fmt.Fprintf(stdout, "rocksleak versions: %s\n", command)
	r, _, runErr := runScenario(ctx, stdout, stderr, o, command)
	if r == nil {
		return runErr
	}
	samples, err := schema.ReadSamplesCSV(filepath.Join(o.out, "samples.csv"))
	if err != nil {
		samples = nil // the rows are then judged on the difference of the fits
	}
	fmt.Fprintf(stdout, "\nwhich versions leak, and how much (%s):\n", o.out)
	fmt.Fprint(stdout, results.VersionsText(r, samples))
	if err := os.WriteFile(filepath.Join(o.out, "versions.md"), []byte(results.VersionsMarkdown(r, samples)), 0o644); err != nil {
		return err
	}
	return runErr
}

// parseVersionsFlags reads the flags of "rocksleak versions" into the run
// options of its preset (records_per_step=2 set first, the versions'
// lifecycles), and --result and --versions.
func parseVersionsFlags(stderr io.Writer, args []string) (o runOptions, result, list string, err error) {
	o = defaultRunOptions()
	o.sets = setFlags{"records_per_step=2"}
	fs := flag.NewFlagSet("versions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var scenario string
	fs.StringVar(&list, "versions", "", "comma-separated Kafka versions of engine/jvm/kafkaversions/versions.tsv (default: every one); each needs make jvm KAFKA_VERSIONS=\"...\" (make versions builds them all)")
	fs.IntVar(&o.lifecycles, "lifecycles", 800, "lifecycles per version (800: the 13 versions in 2 to 5.5 minutes of runs on the shared 2-core machine, each row decided on its native heap, its paired verdict against 4.3.1 and its ledger)")
	fs.Int64Var(&o.seed, "seed", -1, "seed (default: the scenario's)")
	fs.StringVar(&scenario, "scenario", "", "scenario name or YAML file (default: the default scenario)")
	fs.Var(&o.sets, "set", "override one scenario field, key=value (repeatable; records_per_step=2 is set first, as its narrower intervals on the JVM engine are what docs/jvm-engine.md found)")
	fs.StringVar(&o.out, "out", "", "output directory (default runs/<UTC time>-versions)")
	fs.StringVar(&result, "result", "", "re-render the table of an earlier run's result.json instead of running")
	if err := fs.Parse(args); err != nil {
		return o, "", "", fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, "", "", usagef("versions: unexpected argument %q", fs.Arg(0))
	}
	if scenario != "" {
		o.scenario = scenario
	}
	if result == "" && o.lifecycles < 1 {
		return o, "", "", usagef("--lifecycles: %d must be a positive count", o.lifecycles)
	}
	return o, result, list, nil
}

// versionModels turns --versions into kafka-<version> model names, oldest
// first; "" is every version of the table. An unknown version is bad input.
func versionModels(list string) ([]string, error) {
	all := kafkaversions.All()
	if list == "" {
		models := make([]string, len(all))
		for i, v := range all {
			models[i] = v.ModelName()
		}
		return models, nil
	}
	want := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimPrefix(strings.TrimSpace(s), "kafka-")
		if _, ok := kafkaversions.Lookup(s); !ok {
			known := make([]string, len(all))
			for i, v := range all {
				known[i] = v.Kafka
			}
			return nil, usagef("--versions: %q is not in engine/jvm/kafkaversions/versions.tsv (%s)", s, strings.Join(known, ", "))
		}
		want[s] = true
	}
	var models []string
	for _, v := range all {
		if want[v.Kafka] {
			models = append(models, v.ModelName())
		}
	}
	return models, nil
}
