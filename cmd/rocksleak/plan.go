package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rocksleak/rocksleak/plan"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
)

// planUsage is the manual of "rocksleak plan".
const planUsage = `rocksleak plan --result R.json [--model M] [--resident-model M] [--settled-by S.json] [--topology FILE]
               [--tasks N] [--stores-per-task N] [--live-segments N] [--segment-interval D]
               [--rebalances-per-day N] [--rebalance-share X] [--close-failure-rate X]
               [--budget BYTES] [--horizon D] [--name NAME] [--format text|json] [--png FILE]

Projects a model's measured costs onto a production topology (with neither
--topology nor topology flags: onto the run's own scenario topology, which
the plan says in its first warning and its name):

  lifecycles/day    = tasks × stores × (1 day / segment interval)
                    + rebalances/day × rebalance share × tasks × stores × live segments
  failed closes/day = lifecycles/day × close failure rate
  growth/day        = cost per lifecycle × lifecycles/day + cost per failed close × failed closes/day
  resident          = tasks × stores × live segments × resident cost per open DB

for native heap and RSS, low / expected / high from the 95% intervals of the
model's two-counter fit (clamped at 0), and when the budget is reached:
(budget − resident) / growth per day. A signal whose total growth per
lifecycle is not significantly positive gets "no sustained growth" and only
its resident cost. Read the resident cost from a model that does not leak
(--resident-model fixed) when planning for a leaky one.

Growth one run cannot tell (bounded or sustained) is projected as a band,
with the run that would settle it ("to settle it"). Give that run's result
to --settled-by: a longer run of the same model on the same workload (the
same scenario fields but models, seed, lifecycles and duration; the same
allocator; more lifecycles and no less time; samples.csv beside it) whose
own fits decide each band: bounded at the level it held, sustained at its
later half's rate, or still a band when its rate falls. The plan says which
run decided what.

The topology file is YAML with the fields tasks, stores_per_task,
live_segments, segment_interval ("1h"), rebalances_per_day, rebalance_share
(default 1), close_failure_rate, budget ("4GiB"), horizon (default "30d") and
name; flags override it. Sizes accept B, KiB, MiB, GiB, TiB (and kB, MB, GB,
TB); durations accept Go durations and days ("30d").

Exit status: 0 success, 2 bad input (unreadable result, unknown model,
invalid topology, a --settled-by run that cannot settle the plan, which the
message names).
`

// planFlagKeys maps flags to topology fields.
var planFlagKeys = map[string]string{
	"name": "name", "tasks": "tasks", "stores-per-task": "stores_per_task", "live-segments": "live_segments",
	"segment-interval": "segment_interval", "rebalances-per-day": "rebalances_per_day",
	"rebalance-share": "rebalance_share", "close-failure-rate": "close_failure_rate", "budget": "budget",
	"horizon": "horizon",
}

type planOptions struct {
	result, model, residentModel string
	settledBy                    string
	topology                     string
	format, png                  string
	allowPartial                 bool
	sets                         [][2]string // topology field, value: the flags given, in order
}

func parsePlanFlags(stderr io.Writer, args []string) (planOptions, error) {
	var o planOptions
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, planUsage, "\nFlags:\n"); fs.PrintDefaults() }
	fs.StringVar(&o.result, "result", "", "result.json (or its run directory) to take the costs from")
	fs.StringVar(&o.model, "model", "", "model whose costs are projected (default: the result's only model)")
	fs.StringVar(&o.residentModel, "resident-model", "", "model whose resident cost per open DB is used (default: --model)")
	fs.StringVar(&o.settledBy, "settled-by", "", "result.json (or its run directory) of a longer run of the same model and workload that decides the growth this run could not tell")
	fs.StringVar(&o.topology, "topology", "", "topology YAML file")
	fs.StringVar(&o.format, "format", "text", "output format: "+strings.Join(plan.Formats(), ", "))
	fs.StringVar(&o.png, "png", "", "also write a plot of the projected usage to this PNG file")
	fs.BoolVar(&o.allowPartial, "allow-partial", false, "plan from a failed or interrupted run")
	help := map[string]string{
		"name": "name of the topology", "tasks": "stream tasks", "stores-per-task": "window stores per task",
		"live-segments": "open segments per store", "segment-interval": "segment interval (e.g. 1h)",
		"rebalances-per-day": "rebalances per day", "rebalance-share": "share of tasks moved per rebalance, (0,1]",
		"close-failure-rate": "share of closes that fail, [0,1]", "budget": "memory budget (e.g. 4GiB)",
		"horizon": "projection horizon (default 30d)",
	}
	for flagName := range planFlagKeys {
		fs.String(flagName, "", help[flagName])
	}
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, usagef("plan: unexpected argument %q", fs.Arg(0))
	}
	if o.result == "" {
		return o, usagef("plan: --result is required")
	}
	fs.Visit(func(f *flag.Flag) {
		if key, ok := planFlagKeys[f.Name]; ok {
			o.sets = append(o.sets, [2]string{key, f.Value.String()})
		}
	})
	return o, nil
}

// planCmd is "rocksleak plan": it prints the capacity plan (and writes the
// PNG) and returns nil, or an error marked as bad input (exit 2).
func planCmd(stdout, stderr io.Writer, args []string) error {
	o, err := parsePlanFlags(stderr, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	render, err := plan.RendererFor(o.format)
	if err != nil {
		return usagef("--format: %v", err)
	}
	res, err := loadResultFile(o.result)
	if err != nil {
		return err
	}
	if perRocksDBOpen(res) && o.topology == "" && len(o.sets) == 0 {
		return usagef("--result %s is an application's run: give its production topology (--topology FILE, or --tasks, --stores-per-task, ...)", o.result)
	}
	// Without --topology and without topology flags the plan projects onto
	// the run's own scenario topology (plan.FromScenario), and says so.
	// Flags alone go over DefaultTopology, as a topology file's fields do.
	topo, note := plan.DefaultTopology(), ""
	switch {
	case o.topology != "":
		if topo, err = plan.LoadTopology(o.topology); err != nil {
			return inputErr{err}
		}
	case len(o.sets) == 0:
		topo, note = plan.FromScenario(res.Scenario)
	}
	for _, kv := range o.sets {
		if err := topo.Set(kv[0], kv[1]); err != nil {
			return inputErr{fmt.Errorf("--%s: %w", strings.ReplaceAll(kv[0], "_", "-"), err)}
		}
	}
	opt := plan.Options{Model: o.model, ResidentModel: o.residentModel, AllowPartial: o.allowPartial,
		Samples: samplesBeside(resultFilePath(o.result)), ResultPath: o.result}
	if o.settledBy != "" {
		sres, err := loadResultFile(o.settledBy)
		if err != nil {
			return err
		}
		path := resultFilePath(o.settledBy)
		opt.SettledBy = &plan.Settler{Result: sres, Samples: samplesBeside(path), Path: path}
	}
	p, err := plan.Project(res, topo, opt)
	if err != nil {
		return inputErr{err}
	}
	if note != "" {
		p.Warnings = append([]string{note}, p.Warnings...)
	}
	p.Source.Path = resultFilePath(o.result)
	if o.png != "" {
		b, err := plan.PNG(p)
		if err != nil {
			return fmt.Errorf("plotting: %w", err)
		}
		if err := results.WriteFileAtomic(o.png, b); err != nil {
			return fmt.Errorf("--png: %w", err)
		}
	}
	return render(stdout, p)
}

// samplesBeside reads the samples.csv beside a result file; nil when there is
// none or it cannot be read (the plan then says what it could not separate).
func samplesBeside(resultPath string) map[string][]schema.Sample {
	samples, err := schema.ReadSamplesCSV(filepath.Join(filepath.Dir(resultPath), "samples.csv"))
	if err != nil {
		return nil
	}
	return samples
}
