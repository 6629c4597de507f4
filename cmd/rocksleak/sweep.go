package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
)

// reliabilityReport is what "rocksleak reliability" (and "rocksleak merge")
// writes to reliability.json: how often each model was called a leak over
// many seeds.
type reliabilityReport struct {
	Scenario string `json:"scenario"`
	// FirstSeed and SeedCount are the whole sweep's seeds (FirstSeed,
	// FirstSeed+1, ...), of which a shard runs its share.
	FirstSeed int64 `json:"first_seed"`
	SeedCount int   `json:"seed_count"`
	// Shard is "K/N" for the K-th of N shards; empty for a whole sweep,
	// unsharded or merged.
	Shard        string `json:"shard,omitempty"`
	UntilVerdict bool   `json:"until_verdict,omitempty"`
	// Interrupted: the sweep was stopped by a signal. Seeds are the seeds
	// that finished; a seed cut short has its own result, marked
	// interrupted, in its directory and is not tallied.
	Interrupted bool     `json:"interrupted,omitempty"`
	Seeds       []int64  `json:"seeds"`
	Models      []string `json:"models"`
	// Replicate are the models of --replicate: each seed's directory holds
	// their second run under replicate/, which merge pairs again.
	Replicate []string                     `json:"replicate,omitempty"`
	Tally     map[string]*reliabilityTally `json:"tally"`
	Calib     map[string]*calibrationTally `json:"calibration,omitempty"`
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
	// native-heap verdict and the verdict settled, the lifecycles run by
	// then (which, unlike seconds, do not stretch with the machine's load),
	// and how often the early verdict was "leak".
	NativeSettledS           []float64 `json:"native_settled_s,omitempty"`
	VerdictSettledS          []float64 `json:"verdict_settled_s,omitempty"`
	NativeSettledLifecycles  []int64   `json:"native_settled_lifecycles,omitempty"`
	VerdictSettledLifecycles []int64   `json:"verdict_settled_lifecycles,omitempty"`
	EarlyLeak                int       `json:"early_leak"`
}

// lifecycleRange prints the least and the most of ls and their median,
// "min–max (median m)", or "no" when ls is empty.
func lifecycleRange(ls []int64) string {
	if len(ls) == 0 {
		return "no"
	}
	return fmt.Sprintf("%d–%d (median %g)", slices.Min(ls), slices.Max(ls), median(ls))
}

// median is the median of x (x is not changed; NaN when x is empty).
func median[T int64 | float64](x []T) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	return (float64(s[(n-1)/2]) + float64(s[n/2])) / 2
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

func newReliabilityReport(scenario string, models []string, first int64, count int, untilVerdict bool) *reliabilityReport {
	rep := &reliabilityReport{Scenario: scenario, FirstSeed: first, SeedCount: count, UntilVerdict: untilVerdict,
		Models: models, Tally: map[string]*reliabilityTally{}, Calib: map[string]*calibrationTally{},
		Controlled: map[string]*controlledTally{}}
	for _, m := range models {
		rep.Tally[m] = &reliabilityTally{}
	}
	return rep
}

// shard is the K-th of N shares of a sweep's seeds (1 ≤ K ≤ N).
type shard struct{ K, N int }

// parseShard reads "K/N"; the empty string is the whole sweep (1/1).
func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{1, 1}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return shard{}, usagef("--shard: %q is not K/N with 1 ≤ K ≤ N", s)
	}
	return shard{k, n}, nil
}

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// seeds is the shard's share of the sweep first, first+1, ..., first+count-1:
// round robin, the seeds at sweep index i with i mod N = K-1, in order. Every
// seed falls in exactly one shard, shard sizes differ by at most one, and the
// partition depends only on (first, count, N), so any machine computes the
// same one.
func (s shard) seeds(first int64, count int) []int64 {
	var out []int64
	for i := s.K - 1; i < count; i += s.N {
		out = append(out, first+int64(i))
	}
	return out
}

// addSeed tallies one seed's result into the report and returns the words
// that describe it on the seed's progress line.
func (rep *reliabilityReport) addSeed(seed int64, dir string, res *schema.Result) []string {
	rep.Seeds = append(rep.Seeds, seed)
	rep.Runs = append(rep.Runs, dir)
	var words []string
	for _, m := range rep.Models {
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
				t.NativeSettledLifecycles = append(t.NativeSettledLifecycles, q.Native.Lifecycles)
				words = append(words, fmt.Sprintf("(native %s at %.1fs, %d lifecycles;", analysis.VerdictWord(q.Native.Leak),
					float64(q.Native.ElapsedNs)/1e9, q.Native.Lifecycles))
			} else {
				words = append(words, "(native unsettled;")
			}
			if q.Verdict != nil {
				t.VerdictSettledS = append(t.VerdictSettledS, float64(q.Verdict.ElapsedNs)/1e9)
				t.VerdictSettledLifecycles = append(t.VerdictSettledLifecycles, q.Verdict.Lifecycles)
				words = append(words, fmt.Sprintf("verdict %s at %.1fs, %d lifecycles)", analysis.VerdictWord(q.Verdict.Leak),
					float64(q.Verdict.ElapsedNs)/1e9, q.Verdict.Lifecycles))
				if q.Verdict.Leak != nil && *q.Verdict.Leak {
					t.EarlyLeak++
				}
			} else {
				words = append(words, "verdict unsettled)")
			}
		}
		t.NativePerLifecycle = append(t.NativePerLifecycle, totalSlope(run, analysis.SignalNativeHeap))
		t.RSSPerLifecycle = append(t.RSSPerLifecycle, totalSlope(run, analysis.SignalRSS))
		if se, ok := totalSE(run, analysis.SignalNativeHeap); ok {
			t.NativeSE = append(t.NativeSE, se)
		}
		if se, ok := totalSE(run, analysis.SignalRSS); ok {
			t.RSSSE = append(t.RSSSE, se)
		}
	}
	rep.tallyControlled(res.Controlled)
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
	return words
}

// tallyControlled counts controlled verdicts by "model vs control (signal)".
func (rep *reliabilityReport) tallyControlled(cs []schema.Controlled) {
	for _, c := range cs {
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
}

// totalSE is the reported standard error of a run's whole growth per
// lifecycle; ok is false when the fit has no valid interval.
func totalSE(run *schema.Run, signal string) (float64, bool) {
	if f, ok := run.Fits[signal]; ok && f.Total != nil && f.Total.PerLifecycle.Valid {
		return f.Total.PerLifecycle.SE, true
	}
	return 0, false
}

func totalSlope(run *schema.Run, signal string) float64 {
	if f, ok := run.Fits[signal]; ok && f.Total != nil {
		return f.Total.BytesPerLifecycle
	}
	return 0
}

// write writes reliability.json into dir and prints the table.
func (rep *reliabilityReport) write(stdout io.Writer, dir string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, "reliability.json"), append(b, '\n')); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tleak\tno leak\tinconclusive\tfailed\tnative/lifecycle mean ± sd\tspread/SE\tRSS/lifecycle mean ± sd\tspread/SE")
	for _, m := range rep.Models {
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
	if rep.UntilVerdict {
		for _, m := range rep.Models {
			t := rep.Tally[m]
			fmt.Fprintf(stdout, "until-verdict %s: native verdict settled in %d/%d runs, max %.1fs, %s lifecycles; verdict settled in %d/%d, max %.1fs, %s lifecycles; early verdict leak in %d\n",
				m, len(t.NativeSettledS), len(rep.Seeds), maxOf(t.NativeSettledS), lifecycleRange(t.NativeSettledLifecycles),
				len(t.VerdictSettledS), len(rep.Seeds), maxOf(t.VerdictSettledS), lifecycleRange(t.VerdictSettledLifecycles), t.EarlyLeak)
		}
	}
	calibModels := make([]string, 0, len(rep.Calib))
	for m := range rep.Calib {
		calibModels = append(calibModels, m)
	}
	slices.Sort(calibModels)
	for _, m := range calibModels {
		ct := rep.Calib[m]
		fmt.Fprintf(stdout, "calibration %s: native heap error %s, RSS error %s (relative, mean ± sd; max |error| %.2f%% and %.2f%%)\n",
			m, pctMeanSD(ct.NativeErrors), pctMeanSD(ct.RSSErrors), 100*maxAbs(ct.NativeErrors), 100*maxAbs(ct.RSSErrors))
	}
	fmt.Fprintf(stdout, "\nresults: %s\n", dir)
	return nil
}

// errMerge marks shard directories that do not make one sweep (exit 2).
var errMerge = fmt.Errorf("%w: cannot merge", errUsage)

// mergeCmd is "rocksleak merge [--out DIR] DIR...": it joins the directories
// of "reliability --shard K/N" runs (or any reliability directories of the
// same sweep) into one reliability report. It only reads results, so it works
// in a binary built without cgo. The merged report is the one the unsharded
// run writes for the same seeds: seeds in order, tallied from each seed's
// result.json by the same code; only "runs" (the seed directories' paths)
// differ. The shards must be of one sweep (same scenario, models, first seed,
// seed count and --until-verdict) and cover every seed exactly once.
func mergeCmd(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output directory for the merged reliability.json (default results/reliability/<UTC time>-<scenario>-merged)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() == 0 {
		return usagef("merge takes one or more reliability directories")
	}
	var parts []*reliabilityReport
	var dirs []string
	for _, dir := range fs.Args() {
		b, err := os.ReadFile(filepath.Join(dir, "reliability.json"))
		if err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		var p reliabilityReport
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("%w: %s: %w", errMerge, dir, err)
		}
		parts = append(parts, &p)
		dirs = append(dirs, dir)
	}
	first := parts[0]
	seedDir := map[int64]string{}
	for i, p := range parts {
		if p.Scenario != first.Scenario || !slices.Equal(p.Models, first.Models) || p.FirstSeed != first.FirstSeed ||
			p.SeedCount != first.SeedCount || p.UntilVerdict != first.UntilVerdict || !slices.Equal(p.Replicate, first.Replicate) {
			return fmt.Errorf("%w: %s is not of the sweep of %s (scenario, models, seeds, --until-verdict or --replicate differ)",
				errMerge, dirs[i], dirs[0])
		}
		if p.Interrupted {
			return fmt.Errorf("%w: %s is an interrupted sweep (%d of its seeds finished): run that shard again",
				errMerge, dirs[i], len(p.Seeds))
		}
		for _, s := range p.Seeds {
			if prev, dup := seedDir[s]; dup {
				return fmt.Errorf("%w: seed %d is in both %s and %s", errMerge, s, prev, dirs[i])
			}
			seedDir[s] = filepath.Join(dirs[i], fmt.Sprintf("seed-%d", s))
		}
	}
	rep := newReliabilityReport(first.Scenario, first.Models, first.FirstSeed, first.SeedCount, first.UntilVerdict)
	rep.Replicate = first.Replicate
	reps := newReplicates(first.Replicate)
	for _, seed := range (shard{1, 1}).seeds(first.FirstSeed, first.SeedCount) {
		dir, ok := seedDir[seed]
		if !ok {
			return fmt.Errorf("%w: seed %d of the sweep (%d seeds from %d) is in none of the directories",
				errMerge, seed, first.SeedCount, first.FirstSeed)
		}
		res, err := schema.Read(filepath.Join(dir, "result.json"))
		if err != nil {
			return err
		}
		words := rep.addSeed(seed, dir, res)
		if len(first.Replicate) > 0 {
			w, err := mergeReplicate(rep, reps, dir, res)
			if err != nil {
				return err
			}
			words = append(words, w...)
		}
		fmt.Fprintf(stdout, "seed %d: %s\n", seed, strings.Join(words, " "))
	}
	if len(seedDir) != first.SeedCount {
		return fmt.Errorf("%w: the directories hold %d seeds, the sweep has %d", errMerge, len(seedDir), first.SeedCount)
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", "reliability", time.Now().UTC().Format("20060102T150405Z")+"-"+first.Scenario+"-merged")
	}
	if _, err := os.Stat(filepath.Join(dir, "reliability.json")); err == nil {
		return usagef("--out: %s already holds a reliability.json", dir)
	}
	if err := rep.write(stdout, dir); err != nil {
		return err
	}
	reps.write(stdout)
	return nil
}

// mergeReplicate pairs a seed's replicate run (dir/replicate) with its first
// run (dir) from their result.json and samples.csv, as reliability paired
// them from the runs. A seed without a replicate directory is the seed whose
// replicate run failed.
func mergeReplicate(rep *reliabilityReport, reps *replicates, dir string, first *schema.Result) ([]string, error) {
	repDir := filepath.Join(dir, "replicate")
	if _, err := os.Stat(filepath.Join(repDir, "result.json")); errors.Is(err, os.ErrNotExist) {
		return []string{"replicate=failed"}, nil
	}
	res, err := schema.Read(filepath.Join(repDir, "result.json"))
	if err != nil {
		return nil, err
	}
	once, err := schema.ReadSamplesCSV(filepath.Join(dir, "samples.csv"))
	if err != nil {
		return nil, err
	}
	again, err := schema.ReadSamplesCSV(filepath.Join(repDir, "samples.csv"))
	if err != nil {
		return nil, err
	}
	return reps.pair(rep, first, once, res, again), nil
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
	med := median(ses)
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
