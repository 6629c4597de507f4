package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/sweep"
)

// SweepOptions are a reliability sweep's: the scenario run at each seed, and
// where the results go.
type SweepOptions struct {
	// Scenario is resolved and validated; its Seed is replaced by each of
	// Seeds in turn.
	Scenario scenarios.Scenario
	Seeds    []int64
	// Parallel seeds run at once (at least 1); each seed still runs its
	// models one after another, each in its own process.
	Parallel int
	// UntilVerdict, StateRoot and Commit are each run's (see Options).
	UntilVerdict bool
	StateRoot    string
	Commit       string
	// Replicate are models run a second time at every seed (same scenario
	// and seed, after the others): each is judged against the first run (the
	// A/A pair), and the two runs' slopes give the run-to-run spread.
	Replicate []string
	// Out is the sweep's directory: seed-<seed>/ per seed (and its
	// replicate/), then reliability.json.
	Out string
	// Stdout gets each seed's line and the sweep's tables.
	Stdout io.Writer
}

// Sweep runs o.Scenario at each of o.Seeds, writes each seed's result
// directory under o.Out, tallies the seeds into rep (made by
// sweep.New) in seed order, and writes reliability.json with its
// tables. An interrupt stops the sweep: the seeds that finished are tallied,
// a seed cut short keeps its own result (marked interrupted) in its
// directory, untallied, and reliability.json is written with rep.Interrupted
// set (the error is nil: the sweep's record is complete as far as it went). An
// error wrapping ErrInterrupted means a replicate run ended without a result
// and without an error; nothing was written for the sweep.
func Sweep(ctx context.Context, rep *schema.Reliability, o SweepOptions) error {
	sc := o.Scenario
	replicate := o.Replicate
	reps := sweep.NewReplicates(replicate)
	runs := startSeedRuns(ctx, o)
	interrupted := false
	for i := range runs {
		<-runs[i].done
		sc.Seed = runs[i].scSeed
		res, out, runErr := runs[i].res, runs[i].out, runs[i].err
		if errors.Is(runErr, ErrInterrupted) || ctx.Err() != nil && out == nil {
			interrupted = true
			continue
		}
		if out == nil {
			return runErr
		}
		dir := filepath.Join(o.Out, fmt.Sprintf("seed-%d", sc.Seed))
		files, err := results.Render(res, out)
		if err != nil {
			return err
		}
		if err := results.WriteDir(dir, files); err != nil {
			return err
		}
		if out.Interrupted {
			interrupted = true
			fmt.Fprintf(o.Stdout, "seed %d: interrupted (its partial result: %s)\n", sc.Seed, dir)
			continue
		}
		if ro, re := runs[i].repOut, runs[i].repErr; len(replicate) > 0 && ctx.Err() != nil &&
			(ro != nil && ro.Interrupted || ro == nil && (re == nil || errors.Is(re, ErrInterrupted))) {
			interrupted = true
			fmt.Fprintf(o.Stdout, "seed %d: interrupted in its replicate run (its first run: %s)\n", sc.Seed, dir)
			continue
		}
		words := sweep.AddSeed(rep, sc.Seed, dir, res)
		if len(replicate) > 0 {
			w, err := addReplicate(rep, reps, dir, res, out, runs[i].repRes, runs[i].repOut, runs[i].repErr)
			if err != nil {
				return err
			}
			words = append(words, w...)
		}
		fmt.Fprintf(o.Stdout, "seed %d: %s\n", sc.Seed, strings.Join(words, " "))
	}
	rep.Interrupted = interrupted
	if err := sweep.Write(o.Stdout, o.Out, rep); err != nil {
		return err
	}
	reps.Write(o.Stdout)
	return nil
}

// seedRun is one seed's run (and its replicate run) as a worker finishes it;
// done is closed once its fields are set.
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

// startSeedRuns starts o.Parallel workers over o.Seeds and returns a seedRun
// per seed, in o.Seeds' order. Workers take the seeds in order, so results
// arrive (and print) in order.
func startSeedRuns(ctx context.Context, o SweepOptions) []*seedRun {
	runs := make([]*seedRun, len(o.Seeds))
	next := make(chan *seedRun, len(o.Seeds))
	for i := range runs {
		runs[i] = &seedRun{done: make(chan struct{}), scSeed: o.Seeds[i]}
		next <- runs[i]
	}
	close(next)
	for w := 0; w < o.Parallel; w++ {
		go func() {
			for r := range next {
				runSeed(ctx, o, r)
				close(r.done)
			}
		}()
	}
	return runs
}

// runSeed runs o.Scenario at r's seed, then its replicate run when
// o.Replicate names models and the first run was not interrupted; a context
// already cancelled gives r.err = ErrInterrupted and runs nothing.
func runSeed(ctx context.Context, o SweepOptions, r *seedRun) {
	if ctx.Err() != nil {
		r.err = ErrInterrupted
		return
	}
	s := o.Scenario
	s.Seed = r.scSeed
	r.res, r.out, r.err = Run(ctx, Options{Scenario: s, StateRoot: o.StateRoot, Commit: o.Commit,
		Command: fmt.Sprintf("rocksleak reliability seed %d", s.Seed), UntilVerdict: o.UntilVerdict})
	if len(o.Replicate) > 0 && r.out != nil && !r.out.Interrupted && ctx.Err() == nil {
		s.Models = o.Replicate
		r.repRes, r.repOut, r.repErr = Run(ctx, Options{Scenario: s, StateRoot: o.StateRoot, Commit: o.Commit,
			Command: fmt.Sprintf("rocksleak reliability seed %d replicate", s.Seed), UntilVerdict: o.UntilVerdict})
	}
}

// addReplicate writes the seed's replicate run into dir/replicate and pairs
// it with the seed's first run (sweep.Replicates.Pair). It returns the
// words for the seed's progress line.
func addReplicate(rep *schema.Reliability, reps *sweep.Replicates, dir string, first *schema.Result, firstOut *schema.Output, res *schema.Result, out *schema.Output, runErr error) ([]string, error) {
	if out == nil || out.Interrupted {
		if runErr == nil || errors.Is(runErr, ErrInterrupted) || (out != nil && out.Interrupted) {
			return nil, ErrInterrupted
		}
		return []string{"replicate=failed: " + runErr.Error()}, nil
	}
	files, err := results.Render(res, out)
	if err != nil {
		return nil, err
	}
	if err := results.WriteDir(filepath.Join(dir, "replicate"), files); err != nil {
		return nil, err
	}
	return reps.Pair(rep, first, schema.SamplesByModel(firstOut), res, schema.SamplesByModel(out)), nil
}
