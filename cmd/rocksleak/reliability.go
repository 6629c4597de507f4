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
	"slices"
	"strings"

	"github.com/rocksleak/rocksleak/experiment"
	"github.com/rocksleak/rocksleak/sweep"
)

// reliabilityFlags holds what `rocksleak reliability` was asked for.
type reliabilityFlags struct {
	o             runOptions
	seeds         int
	untilVerdict  bool
	parallel      int
	first         int64
	shardFlag     string
	replicateFlag string
}

// parseReliabilityFlags parses and checks reliability's flags: a bad value is
// a usage error naming its flag.
func parseReliabilityFlags(stderr io.Writer, args []string) (reliabilityFlags, error) {
	fs := flag.NewFlagSet("reliability", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f reliabilityFlags
	o := &f.o
	fs.StringVar(&o.scenario, "scenario", "kafka-20616", "scenario name or YAML file")
	fs.StringVar(&o.models, "models", "", "comma-separated models (default: the scenario's)")
	fs.IntVar(&o.lifecycles, "lifecycles", -1, "lifecycles per model per seed (default: the scenario's)")
	fs.IntVar(&f.seeds, "seeds", 20, "number of seeds")
	fs.Int64Var(&f.first, "first-seed", 1, "first seed; the others follow it")
	fs.StringVar(&f.shardFlag, "shard", "", "K/N: run only the K-th of N shares of the seeds (round robin: the seeds at index i with i mod N = K-1), for `rocksleak merge` to join")
	fs.StringVar(&o.out, "out", "", "output directory (default runs/reliability/<UTC time>-<scenario>)")
	fs.Var(&o.sets, "set", "override one scenario field, key=value (repeatable)")
	fs.StringVar(&o.stateRoot, "state-dir", "", "where the stores' state directories go")
	fs.IntVar(&f.parallel, "parallel", 1, "seeds run at once (each seed still runs its models one after another, each in its own process)")
	fs.BoolVar(&f.untilVerdict, "until-verdict", false, "stop each model as soon as its verdict is settled, and report when it settled")
	fs.StringVar(&f.replicateFlag, "replicate", "", "comma-separated models to run a second time at every seed (same scenario and seed, after the others): each replicate is judged against the first run (the A/A pair of the controlled verdict), and the two runs' slopes give the run-to-run spread")
	if err := fs.Parse(args); err != nil {
		return f, fmt.Errorf("%w: %w", errUsage, err)
	}
	if f.parallel < 1 {
		return f, usagef("--parallel: %d must be at least 1", f.parallel)
	}
	if f.seeds < 1 {
		return f, usagef("--seeds: %d must be at least 1", f.seeds)
	}
	if o.lifecycles == 0 || o.lifecycles < -1 {
		return f, usagef("--lifecycles: %d must be a positive count", o.lifecycles)
	}
	return f, nil
}

// replicateModels splits --replicate and refuses a model the scenario does
// not run (a usage error).
func replicateModels(flagValue string, models []string) ([]string, error) {
	var replicate []string
	if flagValue != "" {
		replicate = strings.Split(flagValue, ",")
	}
	for _, m := range replicate {
		if !slices.Contains(models, m) {
			return nil, usagef("--replicate: %q is not one of the scenario's models (%s)", m, strings.Join(models, ","))
		}
	}
	return replicate, nil
}

func reliabilityCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	f, err := parseReliabilityFlags(stderr, args)
	if err != nil {
		return err
	}
	o := f.o
	sh, err := sweep.ParseShard(f.shardFlag)
	if err != nil {
		return usagef("--shard: %v", err)
	}
	o.duration, o.seed = -1, -1
	sc, err := resolveScenario(o)
	if err != nil {
		return err
	}
	replicate, err := replicateModels(f.replicateFlag, sc.Models)
	if err != nil {
		return err
	}
	outDir := o.out
	if outDir == "" {
		outDir = defaultOut("reliability", sc.Name)
	}
	if _, err := os.Stat(outDir); err == nil {
		return usagef("--out: %s already exists", outDir)
	}
	rep := sweep.New(sc.Name, sc.Models, f.first, f.seeds, f.untilVerdict)
	rep.Replicate = replicate
	mine := sh.Seeds(f.first, f.seeds)
	if f.shardFlag != "" {
		rep.Shard = sh.String()
	}
	fmt.Fprintf(stdout, "rocksleak reliability: scenario %s, models %s, %d seeds from %d, %s each\n",
		sc.Name, strings.Join(sc.Models, ","), f.seeds, f.first, stopOf(sc))
	if f.shardFlag != "" {
		fmt.Fprintf(stdout, "shard %s: seeds %v\n", sh, mine)
	}
	err = experiment.Sweep(ctx, rep, experiment.SweepOptions{Scenario: sc, Seeds: mine, Parallel: f.parallel,
		UntilVerdict: f.untilVerdict, StateRoot: o.stateRoot, Commit: gitCommit, Replicate: replicate, Out: outDir,
		Stdout: stdout})
	if errors.Is(err, experiment.ErrInterrupted) {
		return errInterrupted
	}
	if err != nil {
		return err
	}
	if rep.Interrupted {
		fmt.Fprintf(stderr, "rocksleak: interrupted after %d of %d seeds; %s is marked \"interrupted\": true\n",
			len(rep.Seeds), len(mine), filepath.Join(outDir, "reliability.json"))
		return errInterrupted
	}
	return nil
}
