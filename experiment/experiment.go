// Package experiment is the run → analyse pipeline: it runs a resolved
// scenario's models in child processes (package harness), analyses what they
// sent back (package analysis) and returns the result (Run); and it runs a
// scenario at many seeds, writing each seed's result directory and tallying
// the sweep (Sweep, tallied by package sweep). It is the run
// half (cgo, through harness); cmd/rocksleak wires its flags to Options and
// SweepOptions.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/engine/jvm"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/host"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
)

// ErrInterrupted: a sweep was interrupted; what finished is written, marked.
var ErrInterrupted = errors.New("interrupted")

// Options are one run's: the scenario (resolved and validated: its models,
// seed and stop condition are the run's) and how to run it.
type Options struct {
	Scenario scenarios.Scenario
	// StateRoot is where the stores' state directories go (empty: the system
	// temp dir).
	StateRoot string
	// Command and Commit are the result's provenance: the command line that
	// asked for the run and the tool's commit.
	Command, Commit string
	// UntilVerdict stops each model as soon as its verdict is settled
	// (sequential looks by the guarded rule, analysis.NewSequential); the
	// stop condition stays the limit. The result records the looks, and the
	// analysis applies the stop from that record.
	UntilVerdict bool
	// MaxRSS is the memory guard's limit (harness.Guard.MaxRSS: 0 the
	// default, -1 none).
	MaxRSS int64
	// Profile, when set, profiles the children's heaps (rocksleak run --profile).
	Profile *harness.Profile
	// Stderr gets the progress display and the children's stderr (nil:
	// discarded).
	Stderr io.Writer
	// App, when set, is the user's application every model runs
	// (rocksleak run --app; harness.App).
	App *harness.App
}

// Engines are the two engines a run's models go to: the JVM engine's
// kafka-<version> models (engine/jvm, built by make jvm) and every other
// model on the Go engine (engine/goengine: a re-exec of this binary).
func Engines() []engine.Engine { return []engine.Engine{jvm.Engine{}, goengine.Engine{}} }

// Run runs the scenario's models in child processes, with a progress
// display on o.Stderr, and analyses what they sent back. A nil Output means
// nothing ran; otherwise the Result is complete, interrupted or failed, and
// the error (if any) says why.
func Run(ctx context.Context, o Options) (*schema.Result, *schema.Output, error) {
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	sc := o.Scenario
	prog := newProgress(stderr, sc)
	seq := map[string]*analysis.Sequential{}
	var settled func(string, []schema.Sample) bool
	if o.UntilVerdict {
		for _, m := range sc.Models {
			seq[m] = analysis.NewSequential(sc, analysis.DefaultFloors())
		}
		settled = func(m string, samples []schema.Sample) bool {
			return seq[m].Observe(schema.BetweenLifecycles(samples))
		}
	}
	out, runErr := harness.Run(ctx, harness.Config{
		Engines:   Engines(),
		Settled:   settled,
		Scenario:  sc,
		Models:    sc.Models,
		Seed:      sc.Seed,
		StateRoot: o.StateRoot,
		Stderr:    stderr,
		OnEvent:   prog.event,
		Profile:   o.Profile,
		Guard:     harness.Guard{MaxRSS: o.MaxRSS},
		App:       o.App,
	})
	prog.finish()
	if out == nil {
		return nil, nil, runErr
	}
	res := schema.FromOutput(out, sc, host.Provenance(sc.Seed, o.Commit, o.Command))
	// The result records the looks; the analysis applies the early stop from
	// that record, as a re-analysis of the result does.
	for m, q := range seq {
		if run := res.Runs[m]; run != nil {
			run.Sequential = q.Outcome()
		}
	}
	if err := analysis.Analyze(res, schema.SamplesByModel(out), analysis.DefaultFloors()); err != nil {
		return res, out, errors.Join(runErr, fmt.Errorf("analysing samples: %w", err))
	}
	return res, out, runErr
}
