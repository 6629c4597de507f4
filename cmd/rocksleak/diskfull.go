//go:build cgo

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/experiment"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

// diskFullCmd is "rocksleak disk-full": the disk-full scenario (docs/faults.md).
func diskFullCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("disk-full", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scenario := fs.String("scenario", "kafka-20616", "the workload whose stores fail to open (its tasks and store kind)")
	models := fs.String("models", "leaky,fixed", "models to run: leaky is Kafka 4.3.0's ownership, fixed 4.3.1's; kafka-<version> runs Kafka's own jars (make jvm)")
	attempts := fs.Int("attempts", 400, "failed opens per model (each one task's re-initialisation after a replaced thread)")
	interval := fs.Duration("replace-interval", analysis.DefaultReplaceInterval, "time between two retries under REPLACE_THREAD (the consumer's session.timeout.ms: the replaced thread's member does not leave the group)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if *attempts < 20 {
		return usagef("--attempts: %d is too few for a slope (at least 20)", *attempts)
	}
	if *interval <= 0 {
		return usagef("--replace-interval: %s must be positive", *interval)
	}
	sc, err := resolveScenario(runOptions{scenario: *scenario, models: *models, lifecycles: -1, duration: -1, seed: -1})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rocksleak disk-full: scenario %s (%d tasks), models %s, %d failed opens each on a full tmpfs of its own\n",
		sc.Name, sc.Tasks, strings.Join(sc.Models, ","), *attempts)
	runs, err := harness.RunDiskFull(ctx, harness.DiskFullConfig{
		Config: harness.Config{Engines: experiment.Engines(), Scenario: sc, Models: sc.Models, Seed: sc.Seed, Stderr: io.Discard}, Attempts: *attempts})
	if errors.Is(err, harness.ErrNoMount) {
		return fmt.Errorf("disk-full needs a file system of its own, which this process may not mount: %w", err)
	}
	if err != nil && len(runs) == 0 {
		return err
	}
	failed := printDiskFull(stdout, runs, sc.Tasks, *interval)
	if failed {
		return errQuiet
	}
	return err
}

// kafkaVersion names the Kafka release a model's ownership is
// (spec.ModelRelease), "what-if" for none.
func kafkaVersion(model string) string {
	if r := spec.ModelRelease(strings.SplitN(model, "@", 2)[0]); r != "" {
		return r
	}
	return "what-if"
}

// printDiskFull prints the disk-full table (per model and handler: the
// failed opens at the fault, retries per minute, the per-retry leak and the
// growth per minute, analysis.DiskFullCostOf) and each model's figures. It
// reports whether a model's run failed.
func printDiskFull(stdout io.Writer, runs []harness.DiskFullRun, tasks int, interval time.Duration) (failed bool) {
	t := table.New("l|l|r|r|r|r|r", "model", "handler", "failed opens at the fault", "retries/min", "per-retry leak [95% CI]", "growth/min [95% CI]", "after")
	fits := map[string]stats.Estimate{}
	for _, r := range runs {
		e, err := analysis.DiskFullPerRetry(r.Samples)
		switch {
		case r.Error != "":
			failed = true
			fmt.Fprintf(stdout, "%s: failed: %s\n", r.Model, r.Error)
			continue
		case err != nil:
			failed = true
			fmt.Fprintf(stdout, "%s: no per-retry fit: %v\n", r.Model, err)
			continue
		}
		fits[r.Model] = e
		for _, h := range []analysis.Handler{analysis.ShutdownClient, analysis.ReplaceThread} {
			c := analysis.DiskFullCostOf(h, tasks, e.Value, interval)
			lo, hi := analysis.DiskFullCostOf(h, tasks, e.Low, interval), analysis.DiskFullCostOf(h, tasks, e.High, interval)
			after := "the client stops (ERROR)"
			if !c.ClientStops {
				after = "retries for as long as the disk stays full"
			}
			t.Add(r.Model+" ("+kafkaVersion(r.Model)+")", string(h), fmt.Sprint(c.FirstOpens), fmt.Sprintf("%.1f", c.RetriesPerMin),
				withCI(e.Value, e.Low, e.High, e.Valid), growthCell(c, lo, hi, e.Valid), after)
		}
	}
	var b strings.Builder
	t.Text(&b)
	fmt.Fprintf(stdout, "\n%s\n", b.String())
	for _, r := range runs {
		e, ok := fits[r.Model]
		if !ok {
			continue
		}
		fmt.Fprintf(stdout, "%s: %d failed opens × %s per retry = %s; measured native heap Δ %s; %d options objects live at the end\n",
			r.Model, r.Attempts, units.FormatSignedBytes(e.Value), units.FormatSignedBytes(float64(r.Attempts)*e.Value),
			units.FormatSignedBytes(float64(r.Growth)), r.LiveOptions)
		fmt.Fprintf(stdout, "  RocksDB said: %s\n", r.FirstError)
	}
	fmt.Fprintf(stdout, "retries/min under replace-thread: %d tasks per %s (--replace-interval); shutdown-client retries nothing\n", tasks, interval)
	return failed
}

// withCI renders v bytes with its interval, or v alone.
func withCI(v, lo, hi float64, ok bool) string {
	if !ok {
		return units.FormatSignedBytes(v) + " (no CI)"
	}
	return fmt.Sprintf("%s [%s, %s]", units.FormatSignedBytes(v), units.FormatSignedBytes(lo), units.FormatSignedBytes(hi))
}

// growthCell renders a handler's growth per minute: 0 when the client stops.
func growthCell(c, lo, hi analysis.DiskFullCost, ok bool) string {
	if c.ClientStops {
		return "0"
	}
	return withCI(c.GrowthPerMin, lo.GrowthPerMin, hi.GrowthPerMin, ok)
}
