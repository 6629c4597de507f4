//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
)

// reliabilityReport is what "rocksleak reliability" writes to
// reliability.json: how often each model was called a leak over many seeds.
type reliabilityReport struct {
	Scenario string                       `json:"scenario"`
	Seeds    []int64                      `json:"seeds"`
	Models   []string                     `json:"models"`
	Tally    map[string]*reliabilityTally `json:"tally"`
	Calib    map[string]*calibrationTally `json:"calibration,omitempty"`
	// Controlled tallies the controlled verdicts by "model vs control
	// (signal)" (see analysis.Controlled).
	Controlled map[string]*controlledTally `json:"controlled,omitempty"`
	Runs       []string                    `json:"runs"` // result directories, one per seed
}

type reliabilityTally struct {
	Leak, NoLeak, Inconclusive, Failed int
	// NativePerLifecycle are the per-seed whole native-heap growths per
	// lifecycle (bytes), for their spread across seeds.
	NativePerLifecycle []float64 `json:"native_per_lifecycle"`
	RSSPerLifecycle    []float64 `json:"rss_per_lifecycle"`
	// NativeSE and RSSSE are the per-seed reported standard errors of
	// those slopes, for the spread-to-SE ratio.
	NativeSE []float64 `json:"native_se"`
	RSSSE    []float64 `json:"rss_se"`
	// With --until-verdict: seconds from the child's start until the
	// native-heap verdict and the verdict settled, and how often the early
	// verdict was "leak".
	NativeSettledS  []float64 `json:"native_settled_s,omitempty"`
	VerdictSettledS []float64 `json:"verdict_settled_s,omitempty"`
	EarlyLeak       int       `json:"early_leak"`
}

// controlledTally counts one pair's controlled verdicts over the seeds.
type controlledTally struct {
	Leak, NoLeak, Inconclusive int
	Differences                []float64 `json:"differences"` // per seed, model − control per lifecycle
	Lifecycles                 []int64   `json:"lifecycles"`
}

type calibrationTally struct {
	NativeErrors []float64 `json:"native_relative_errors"`
	RSSErrors    []float64 `json:"rss_relative_errors"`
}

func reliabilityCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("reliability", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o runOptions
	var seeds int
	var untilVerdict bool
	var parallel int
	var first int64
	fs.StringVar(&o.scenario, "scenario", "kafka-20616", "scenario name or YAML file")
	fs.StringVar(&o.models, "models", "", "comma-separated models (default: the scenario's)")
	fs.IntVar(&o.lifecycles, "lifecycles", -1, "lifecycles per model per seed (default: the scenario's)")
	fs.IntVar(&seeds, "seeds", 20, "number of seeds")
	fs.Int64Var(&first, "first-seed", 1, "first seed; the others follow it")
	fs.StringVar(&o.out, "out", "", "output directory (default results/reliability/<UTC time>-<scenario>)")
	fs.Var(&o.sets, "set", "override one scenario field, key=value (repeatable)")
	fs.StringVar(&o.stateRoot, "state-dir", "", "where the stores' state directories go")
	fs.IntVar(&parallel, "parallel", 1, "seeds run at once (each seed still runs its models one after another, each in its own process)")
	fs.BoolVar(&untilVerdict, "until-verdict", false, "stop each model as soon as its verdict is settled, and report when it settled")
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
	o.duration, o.seed = -1, -1
	sc, err := resolveScenario(o)
	if err != nil {
		return err
	}
	outDir := o.out
	if outDir == "" {
		outDir = filepath.Join("results", "reliability", time.Now().UTC().Format("20060102T150405Z")+"-"+sc.Name)
	}
	if _, err := os.Stat(outDir); err == nil {
		return usagef("--out: %s already exists", outDir)
	}
	rep := &reliabilityReport{Scenario: sc.Name, Models: sc.Models, Tally: map[string]*reliabilityTally{},
		Calib: map[string]*calibrationTally{}, Controlled: map[string]*controlledTally{}}
	for _, m := range sc.Models {
		rep.Tally[m] = &reliabilityTally{}
	}
	fmt.Fprintf(stdout, "rocksleak reliability: scenario %s, models %s, %d seeds from %d, %s each\n",
		sc.Name, strings.Join(sc.Models, ","), seeds, first, stopOf(sc))
	type seedRun struct {
		res    *schema.Result
		out    *schema.Output
		err    error
		done   chan struct{}
		scSeed int64
	}
	runs := make([]*seedRun, seeds)
	next := make(chan *seedRun, seeds)
	for i := range runs {
		runs[i] = &seedRun{done: make(chan struct{}), scSeed: first + int64(i)}
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
				}
				close(r.done)
			}
		}()
	}
	for i := 0; i < seeds; i++ {
		<-runs[i].done
		sc.Seed = runs[i].scSeed
		res, out, runErr := runs[i].res, runs[i].out, runs[i].err
		if errors.Is(runErr, errInterrupted) {
			return errInterrupted
		}
		if out != nil && out.Interrupted {
			return errInterrupted
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
		rep.Seeds = append(rep.Seeds, sc.Seed)
		rep.Runs = append(rep.Runs, dir)
		var words []string
		for _, m := range sc.Models {
			t := rep.Tally[m]
			run := res.Runs[m]
			switch {
			case run == nil || run.Verdict == nil || run.Error != "":
				t.Failed++
				words = append(words, m+"=failed")
				continue
			case run.Verdict.Leak == nil:
				t.Inconclusive++
			case *run.Verdict.Leak:
				t.Leak++
			default:
				t.NoLeak++
			}
			words = append(words, m+"="+runVerdictWord(run.Verdict))
			if q := run.Sequential; q != nil {
				if q.Native != nil {
					t.NativeSettledS = append(t.NativeSettledS, float64(q.Native.ElapsedNs)/1e9)
					words = append(words, fmt.Sprintf("(native %s at %.1fs", analysis.VerdictWord(q.Native.Leak), float64(q.Native.ElapsedNs)/1e9))
				} else {
					words = append(words, "(native unsettled")
				}
				if q.Verdict != nil {
					t.VerdictSettledS = append(t.VerdictSettledS, float64(q.Verdict.ElapsedNs)/1e9)
					words = append(words, fmt.Sprintf("verdict %s at %.1fs)", analysis.VerdictWord(q.Verdict.Leak), float64(q.Verdict.ElapsedNs)/1e9))
					if q.Verdict.Leak != nil && *q.Verdict.Leak {
						t.EarlyLeak++
					}
				} else {
					words = append(words, "verdict unsettled)")
				}
			}
			nat, rss := run.Fits[analysis.SignalNativeHeap].Total, run.Fits[analysis.SignalRSS].Total
			t.NativePerLifecycle = append(t.NativePerLifecycle, nat.BytesPerLifecycle)
			t.RSSPerLifecycle = append(t.RSSPerLifecycle, rss.BytesPerLifecycle)
			if nat.PerLifecycle.Valid {
				t.NativeSE = append(t.NativeSE, nat.PerLifecycle.SE)
			}
			if rss.PerLifecycle.Valid {
				t.RSSSE = append(t.RSSSE, rss.PerLifecycle.SE)
			}
		}
		for _, c := range res.Controlled {
			key := fmt.Sprintf("%s vs %s (%s)", c.Model, c.Control, analysis.Describe(c.Signal).Name)
			ct := rep.Controlled[key]
			if ct == nil {
				ct = &controlledTally{}
				rep.Controlled[key] = ct
			}
			switch c.Verdict {
			case analysis.WordLeak:
				ct.Leak++
			case analysis.WordNoLeak:
				ct.NoLeak++
			default:
				ct.Inconclusive++
			}
			ct.Differences = append(ct.Differences, c.Difference.Value)
			ct.Lifecycles = append(ct.Lifecycles, c.Lifecycles)
		}
		for _, c := range res.Calibration {
			ct := rep.Calib[c.Model]
			if ct == nil {
				ct = &calibrationTally{}
				rep.Calib[c.Model] = ct
			}
			ct.NativeErrors = append(ct.NativeErrors, c.NativeHeapError)
			ct.RSSErrors = append(ct.RSSErrors, c.RSSError)
			words = append(words, fmt.Sprintf("%s native %+.2f%% rss %+.2f%%", c.Model, 100*c.NativeHeapError, 100*c.RSSError))
		}
		fmt.Fprintf(stdout, "seed %d: %s\n", sc.Seed, strings.Join(words, " "))
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(outDir, "reliability.json"), append(b, '\n')); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tleak\tno leak\tinconclusive\tfailed\tnative/lifecycle mean ± sd\tspread/SE\tRSS/lifecycle mean ± sd\tspread/SE")
	for _, m := range sc.Models {
		t := rep.Tally[m]
		n := len(rep.Seeds)
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%d/%d\t%d/%d\t%s\t%s\t%s\t%s\n", m, t.Leak, n, t.NoLeak, n, t.Inconclusive, n, t.Failed, n,
			meanSD(t.NativePerLifecycle), ratioCell(t.NativePerLifecycle, t.NativeSE),
			meanSD(t.RSSPerLifecycle), ratioCell(t.RSSPerLifecycle, t.RSSSE))
	}
	tw.Flush()
	fmt.Fprintln(stdout, "spread/SE: the across-seed standard deviation of the slope over the median reported standard error (goal ≤ 1.5; needs 3 seeds)")
	if len(rep.Controlled) > 0 {
		fmt.Fprintln(stdout)
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "controlled verdict\tleak\tno difference\tinconclusive\tmodel − control/lifecycle mean ± sd\tlifecycles (max)")
		for _, key := range sortedKeys(rep.Controlled) {
			ct := rep.Controlled[key]
			n := len(ct.Differences)
			var maxL int64
			for _, l := range ct.Lifecycles {
				maxL = max(maxL, l)
			}
			fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%d/%d\t%s\t%d\n", key, ct.Leak, n, ct.NoLeak, n, ct.Inconclusive, n,
				meanSD(ct.Differences), maxL)
		}
		tw.Flush()
	}
	if untilVerdict {
		for _, m := range sc.Models {
			t := rep.Tally[m]
			fmt.Fprintf(stdout, "until-verdict %s: native verdict settled in %d/%d runs, max %.1fs; verdict settled in %d/%d, max %.1fs; early verdict leak in %d\n",
				m, len(t.NativeSettledS), len(rep.Seeds), maxOf(t.NativeSettledS), len(t.VerdictSettledS), len(rep.Seeds), maxOf(t.VerdictSettledS), t.EarlyLeak)
		}
	}
	for m, ct := range rep.Calib {
		fmt.Fprintf(stdout, "calibration %s: native heap error %s, RSS error %s (relative, mean ± sd; max |error| %.2f%% and %.2f%%)\n",
			m, pctMeanSD(ct.NativeErrors), pctMeanSD(ct.RSSErrors), 100*maxAbs(ct.NativeErrors), 100*maxAbs(ct.RSSErrors))
	}
	fmt.Fprintf(stdout, "\nresults: %s\n", outDir)
	return nil
}

// spreadRatio is the across-seed standard deviation of slopes over the
// median of their reported standard errors: about 1 when the intervals are
// honest about seed-to-seed variation. ok is false with fewer than 3 slopes
// or no positive standard error.
func spreadRatio(slopes, ses []float64) (ratio float64, ok bool) {
	if len(slopes) < 3 || len(ses) == 0 {
		return 0, false
	}
	_, sd := moments(slopes)
	s := append([]float64(nil), ses...)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if !(med > 0) {
		return 0, false
	}
	return sd / med, true
}

func ratioCell(slopes, ses []float64) string {
	r, ok := spreadRatio(slopes, ses)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func meanSD(x []float64) string {
	if len(x) == 0 {
		return "-"
	}
	m, sd := moments(x)
	return fmt.Sprintf("%s ± %s", signedBytes(int64(math.Round(m))), humanBytes(sd))
}

func pctMeanSD(x []float64) string {
	m, sd := moments(x)
	return fmt.Sprintf("%+.2f%% ± %.2f%%", 100*m, 100*sd)
}

func moments(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	if len(x) > 1 {
		sd = math.Sqrt(sd / float64(len(x)-1))
	}
	return mean, sd
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func maxOf(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

// runVerdictWord words a run's verdict; a run without one is inconclusive.
func runVerdictWord(v *schema.Verdict) string {
	if v == nil {
		return analysis.WordInconclusive
	}
	return analysis.VerdictWord(v.Leak)
}
