package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/engine/jvm/kafkaversions"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
)

// versionsCmd answers "which Kafka versions leak, and how much": one run of
// the JVM engine over the versions of engine/jvm/kafkaversions/versions.tsv (or a
// --versions subset), oldest first, then the versions table
// (results.VersionsText). It is "rocksleak run --models kafka-<v>,..." with
// the table added: the run writes its usual directory, plus versions.md.
// With --result it re-renders the table of an earlier run.
func versionsCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("versions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var list, out, result, scenario string
	var lifecycles int
	var seed int64
	var sets []string
	fs.StringVar(&list, "versions", "", "comma-separated Kafka versions of engine/jvm/kafkaversions/versions.tsv (default: every one); each needs make jvm KAFKA_VERSIONS=\"...\" (make versions builds them all)")
	fs.IntVar(&lifecycles, "lifecycles", 400, "lifecycles per version")
	fs.Int64Var(&seed, "seed", -1, "seed (default: the scenario's)")
	fs.StringVar(&scenario, "scenario", "", "scenario name or YAML file (default: the default scenario)")
	fs.Func("set", "override one scenario field, key=value (repeatable; records_per_step=2 is set first, as its narrower intervals on the JVM engine are what docs/jvm-engine.md found)", func(v string) error {
		sets = append(sets, v)
		return nil
	})
	fs.StringVar(&out, "out", "", "output directory (default runs/<UTC time>-versions)")
	fs.StringVar(&result, "result", "", "re-render the table of an earlier run's result.json instead of running")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return usagef("versions: unexpected argument %q", fs.Arg(0))
	}
	if result != "" {
		r, err := schema.Read(result)
		if err != nil {
			return err
		}
		if len(results.VersionRows(r)) == 0 {
			return usagef("--result: %s has no kafka-<version> model", result)
		}
		fmt.Fprint(stdout, results.VersionsText(r))
		return nil
	}
	models, err := versionModels(list)
	if err != nil {
		return err
	}
	if lifecycles < 1 {
		return usagef("--lifecycles: %d must be a positive count", lifecycles)
	}
	if out == "" {
		out = defaultOut("", "versions")
	}
	runArgs := []string{"--models", strings.Join(models, ","), "--lifecycles", strconv.Itoa(lifecycles),
		"--out", out, "--set", "records_per_step=2"}
	if scenario != "" {
		runArgs = append(runArgs, "--scenario", scenario)
	}
	if seed != -1 {
		runArgs = append(runArgs, "--seed", strconv.FormatInt(seed, 10))
	}
	for _, s := range sets {
		runArgs = append(runArgs, "--set", s)
	}
	fmt.Fprintf(stdout, "rocksleak versions: rocksleak run %s\n", strings.Join(runArgs, " "))
	runErr := runCmd(ctx, stdout, stderr, runArgs)
	r, err := schema.Read(filepath.Join(out, "result.json"))
	if err != nil {
		if runErr != nil {
			return runErr
		}
		return err
	}
	fmt.Fprintf(stdout, "\nwhich versions leak, and how much (%s):\n", out)
	fmt.Fprint(stdout, results.VersionsText(r))
	if err := os.WriteFile(filepath.Join(out, "versions.md"), []byte(results.VersionsMarkdown(r)), 0o644); err != nil {
		return err
	}
	return runErr
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
