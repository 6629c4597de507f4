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
	"time"

	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
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
	fs.StringVar(&o.out, "out", "", "output directory (default results/reliability/<UTC time>-<scenario>)")
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
	sh, err := parseShard(shardFlag)
	if err != nil {
		return err
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
	reps := newReplicates(replicate)
	outDir := o.out
	if outDir == "" {
		outDir = filepath.Join("results", "reliability", time.Now().UTC().Format("20060102T150405Z")+"-"+sc.Name)
	}
	if _, err := os.Stat(outDir); err == nil {
		return usagef("--out: %s already exists", outDir)
	}
	rep := newReliabilityReport(sc.Name, sc.Models, first, seeds, untilVerdict)
	rep.Replicate = replicate
	mine := sh.seeds(first, seeds)
	if shardFlag != "" {
		rep.Shard = sh.String()
	}
	fmt.Fprintf(stdout, "rocksleak reliability: scenario %s, models %s, %d seeds from %d, %s each\n",
		sc.Name, strings.Join(sc.Models, ","), seeds, first, stopOf(sc))
	if shardFlag != "" {
		fmt.Fprintf(stdout, "shard %s: seeds %v\n", sh, mine)
	}
	type seedRun struct {
		res    *schema.Result
		out    *schema.Output
		err    error
		done   chan struct{}
		scSeed int64
		// The replicate run of --replicate, after the seed's models.
		repRes *schema.Result
		repOut *schema.Output
		repErr error
	}
	runs := make([]*seedRun, len(mine))
	next := make(chan *seedRun, len(mine))
	for i := range runs {
		runs[i] = &seedRun{done: make(chan struct{}), scSeed: mine[i]}
		next <- runs[i]
	}
	close(next)
	// Workers take the seeds in order, so results arrive (and print) in order.
	for w := 0; w < parallel; w++ {
		go func() {
			for r := range next {
				if ctx.Err() != nil {
					r.err = errInterrupted
				} else {
					s := sc
					s.Seed = r.scSeed
					r.res, r.out, r.err = execute(ctx, io.Discard, s, o.stateRoot,
						fmt.Sprintf("rocksleak reliability seed %d", s.Seed), untilVerdict)
					if len(replicate) > 0 && r.out != nil && !r.out.Interrupted && ctx.Err() == nil {
						s.Models = replicate
						r.repRes, r.repOut, r.repErr = execute(ctx, io.Discard, s, o.stateRoot,
							fmt.Sprintf("rocksleak reliability seed %d replicate", s.Seed), untilVerdict)
					}
				}
				close(r.done)
			}
		}()
	}
	// An interrupt stops the sweep: the seeds that finished are tallied, a
	// seed cut short keeps its own result (marked interrupted) in its
	// directory, untallied, and reliability.json is written, marked.
	interrupted := false
	for i := range runs {
		<-runs[i].done
		sc.Seed = runs[i].scSeed
		res, out, runErr := runs[i].res, runs[i].out, runs[i].err
		if errors.Is(runErr, errInterrupted) || ctx.Err() != nil && out == nil {
			interrupted = true
			continue
		}
		if out == nil {
			return runErr
		}
		dir := filepath.Join(outDir, fmt.Sprintf("seed-%d", sc.Seed))
		files, err := results.Render(res, out)
		if err != nil {
			return err
		}
		if err := results.WriteDir(dir, files); err != nil {
			return err
		}
		if out.Interrupted {
			interrupted = true
			fmt.Fprintf(stdout, "seed %d: interrupted (its partial result: %s)\n", sc.Seed, dir)
			continue
		}
		if ro, re := runs[i].repOut, runs[i].repErr; len(replicate) > 0 && ctx.Err() != nil &&
			(ro != nil && ro.Interrupted || ro == nil && (re == nil || errors.Is(re, errInterrupted))) {
			interrupted = true
			fmt.Fprintf(stdout, "seed %d: interrupted in its replicate run (its first run: %s)\n", sc.Seed, dir)
			continue
		}
		words := rep.addSeed(sc.Seed, dir, res)
		if len(replicate) > 0 {
			w, err := reps.add(rep, dir, res, out, runs[i].repRes, runs[i].repOut, runs[i].repErr)
			if err != nil {
				return err
			}
			words = append(words, w...)
		}
		fmt.Fprintf(stdout, "seed %d: %s\n", sc.Seed, strings.Join(words, " "))
	}
	rep.Interrupted = interrupted
	if err := rep.write(stdout, outDir); err != nil {
		return err
	}
	reps.write(stdout)
	if interrupted {
		fmt.Fprintf(stderr, "rocksleak: interrupted after %d of %d seeds; %s is marked \"interrupted\": true\n",
			len(rep.Seeds), len(mine), filepath.Join(outDir, "reliability.json"))
		return errInterrupted
	}
	return nil
}
