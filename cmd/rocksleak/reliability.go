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

func reliabilityCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("reliability", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o runOptions
	var seeds int
	var untilVerdict bool
	var parallel int
	var first int64
	var shardFlag string
	var replicateFlag string
	fs.StringVar(&o.scenario, "scenario", "kafka-20616", "scenario name or YAML file")
	fs.StringVar(&o.models, "models", "", "comma-separated models (default: the scenario's)")
	fs.IntVar(&o.lifecycles, "lifecycles", -1, "lifecycles per model per seed (default: the scenario's)")
	fs.IntVar(&seeds, "seeds", 20, "number of seeds")
	fs.Int64Var(&first, "first-seed", 1, "first seed; the others follow it")
	fs.StringVar(&shardFlag, "shard", "", "K/N: run only the K-th of N shares of the seeds (round robin: the seeds at index i with i mod N = K-1), for `rocksleak merge` to join")
	fs.StringVar(&o.out, "out", "", "output directory (default runs/reliability/<UTC time>-<scenario>)")
	fs.Var(&o.sets, "set", "override one scenario field, key=value (repeatable)")
	fs.StringVar(&o.stateRoot, "state-dir", "", "where the stores' state directories go")
	fs.IntVar(&parallel, "parallel", 1, "seeds run at once (each seed still runs its models one after another, each in its own process)")
	fs.BoolVar(&untilVerdict, "until-verdict", false, "stop each model as soon as its verdict is settled, and report when it settled")
	fs.StringVar(&replicateFlag, "replicate", "", "comma-separated models to run a second time at every seed (same scenario and seed, after the others): each replicate is judged against the first run (the A/A pair of the controlled verdict), and the two runs' slopes give the run-to-run spread")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if parallel < 1 {
		return usagef("--parallel: %d must be at least 1", parallel)
	}
	if seeds < 1 {
		return usagef("--seeds: %d must be at least 1", seeds)
	}
	if o.lifecycles == 0 || o.lifecycles < -1 {
		return usagef("--lifecycles: %d must be a positive count", o.lifecycles)
	}
	sh, err := sweep.ParseShard(shardFlag)
	if err != nil {
		return usagef("--shard: %v", err)
	}
	o.duration, o.seed = -1, -1
	sc, err := resolveScenario(o)
	if err != nil {
		return err
	}
	var replicate []string
	if replicateFlag != "" {
		replicate = strings.Split(replicateFlag, ",")
	}
	for _, m := range replicate {
		if !slices.Contains(sc.Models, m) {
			return usagef("--replicate: %q is not one of the scenario's models (%s)", m, strings.Join(sc.Models, ","))
		}
	}
	outDir := o.out
	if outDir == "" {
		outDir = defaultOut("reliability", sc.Name)
	}
	if _, err := os.Stat(outDir); err == nil {
		return usagef("--out: %s already exists", outDir)
	}
	rep := sweep.New(sc.Name, sc.Models, first, seeds, untilVerdict)
	rep.Replicate = replicate
	mine := sh.Seeds(first, seeds)
	if shardFlag != "" {
		rep.Shard = sh.String()
	}
	fmt.Fprintf(stdout, "rocksleak reliability: scenario %s, models %s, %d seeds from %d, %s each\n",
		sc.Name, strings.Join(sc.Models, ","), seeds, first, stopOf(sc))
	if shardFlag != "" {
		fmt.Fprintf(stdout, "shard %s: seeds %v\n", sh, mine)
	}
	err = experiment.Sweep(ctx, rep, experiment.SweepOptions{Scenario: sc, Seeds: mine, Parallel: parallel,
		UntilVerdict: untilVerdict, StateRoot: o.stateRoot, Commit: gitCommit, Replicate: replicate, Out: outDir,
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
