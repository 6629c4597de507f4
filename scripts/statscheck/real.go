package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
	"github.com/rocksleak/rocksleak/stats/simulate"
)

func spreads(glob string) error {
	dirs, err := filepath.Glob(glob)
	if err != nil {
		return err
	}
	sort.Strings(dirs)
	fmt.Println("\nAcross-seed spread of the per-lifecycle slope on real runs: SD of the seeds' slopes / median reported SE (goal 0.75–1.33 for both signals; ratios to 3 places, to be read against those edges).")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Println("fit: total = Y ~ 1 + lifecycles (the growth per lifecycle the verdict reads); +failed closes = the lifecycle slope of Y ~ 1 + lifecycles + failed closes.")
	fmt.Println("legacy = Cochrane–Orcutt FGLS + Newey–West; tool = what the tool uses (analysis.OptionsFor): RegressCalibrated (batch means where the")
	fmt.Println("likelihood region does not widen RegressRobust's GLS profile-likelihood interval) for the native heap, RegressRobustBatch (the wider of that")
	fmt.Println("interval and a batch-means one) for RSS; profile-only = RegressRobust for both (the native heap's interval before the calibrated one).")
	fmt.Println("RSS is the code's RSS the verdicts read (RSS less the instrument's runtime, runtime_bytes, where samples.csv has it),")
	fmt.Println("with restored records as a regressor (samples.csv without the column: none); the start sample is left out, as the tool does.")
	fmt.Println("rw = seeds whose error model allows a random walk (FlagRandomWalkModelled); flagged = seeds with a blocking flag (tool).")
	fmt.Fprintln(w, "run\tmodel\tsignal\tfit\tseeds\tmean slope\tSD\t|\tlegacy SE\tratio\t|\ttool SE\tratio\t|\tprofile-only SE\tratio\trw\tflagged\t")
	for _, d := range dirs {
		seeds, err := loadRun(d)
		if err != nil {
			return err
		}
		if len(seeds) == 0 {
			continue
		}
		var models []string
		for m := range seeds[0] {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			for _, sig := range []string{"native_heap", "rss"} {
				for _, total := range []bool{true, false} {
					lo := stats.DefaultOptions()
					po := simulate.ProfileOnly().Options // p: the profile-likelihood interval alone
					a, err := simulate.SeedSpread(filepath.Base(d), seeds, m, sig, total, lo)
					if err != nil {
						return err
					}
					p, err := simulate.SeedSpread(filepath.Base(d), seeds, m, sig, total, po)
					if err != nil {
						return err
					}
					to := simulate.Robust().Options // b: the tool's (per signal)
					if sig == "rss" {
						to = simulate.Robust().RSSOptions()
					}
					b, err := simulate.SeedSpread(filepath.Base(d), seeds, m, sig, total, to)
					if err != nil {
						return err
					}
					fit := "total"
					if !total {
						fit = "+failed closes"
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%.0f\t%.0f\t|\t%.0f\t%.3f\t|\t%.0f\t%.3f\t|\t%.0f\t%.3f\t%d\t%d\t\n", b.Run, m, sig, fit, b.Seeds, b.MeanSlope, b.SD, a.MedianSE, a.Ratio, b.MedianSE, b.Ratio, p.MedianSE, p.Ratio, b.RandomWalk, b.Flagged)
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := realVerdicts(dirs); err != nil {
		return err
	}
	if err := realControlled(dirs); err != nil {
		return err
	}
	if err := realPaired(dirs); err != nil {
		return err
	}
	return realPairedTimer(dirs)
}

// realControlled injects a 256 B/lifecycle leak into real fixed-model
// native-heap series and judges it against another seed's series.
func realControlled(dirs []string) error {
	const leak = 256
	fmt.Printf("\nControlled verdict on real native-heap series: seed i's fixed model + %d B/lifecycle against seed i+1's fixed model (cyclic), and the A/A pair without it.\n", leak)
	fmt.Println("τ = between-seed SD of the slope beyond the reported SEs, √(SD² − median SE²), from the same seeds (CompareOptions.BetweenRunSD).")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "run\tlifecycles\tpairs\t|\tτ = 0: detected\tA/A false\t|\tτ\tdetected\tA/A false\t")
	opt := simulate.Robust().Options
	for _, d := range dirs {
		seeds, err := loadRun(d)
		if err != nil {
			return err
		}
		if len(seeds) < 2 {
			continue
		}
		if _, ok := seeds[0]["fixed"]; !ok {
			continue
		}
		sp, err := simulate.SeedSpread(filepath.Base(d), seeds, "fixed", "native_heap", true, opt)
		if err != nil {
			return err
		}
		tau := math.Sqrt(math.Max(0, sp.SD*sp.SD-sp.MedianSE*sp.MedianSE))
		maxL := seeds[0]["fixed"].Lifecycles[len(seeds[0]["fixed"].Lifecycles)-1]
		for _, L := range []float64{250, 500, 1000, 1500} {
			if L > maxL {
				continue
			}
			d0, a0, n, err := simulate.RealControlled(seeds, "fixed", leak, L, opt, stats.CompareOptions{})
			if err != nil {
				return err
			}
			d1, a1, _, err := simulate.RealControlled(seeds, "fixed", leak, L, opt, stats.CompareOptions{BetweenRunSD: tau, BetweenRunDF: float64(len(seeds) - 1)})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\t%.0f\t%d\t|\t%d/%d\t%d/%d\t|\t%.0f\t%d/%d\t%d/%d\t\n", filepath.Base(d), L, n, d0, n, a0, n, tau, d1, n, a1, n)
		}
	}
	return w.Flush()
}

// realVerdicts tallies the verdicts of each model over the seeds of each run.
func realVerdicts(dirs []string) error {
	fmt.Println("\nVerdicts on real runs (total fits of native heap and RSS, default floors stats.DefaultNativeFloor and DefaultRSSFloor, 2 KiB and 12 KiB per lifecycle): leak / no leak / inconclusive.")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "run\tmodel\tlegacy (Decide)\trobust (DecideSignals)\t")
	var settles []string
	for _, d := range dirs {
		seeds, err := loadRun(d)
		if err != nil {
			return err
		}
		if len(seeds) == 0 {
			continue
		}
		var models []string
		for m := range seeds[0] {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			a, err := simulate.RealVerdicts(seeds, m, simulate.Legacy())
			if err != nil {
				return err
			}
			b, err := simulate.RealVerdicts(seeds, m, simulate.Robust())
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\t%s\t%d / %d / %d\t%d / %d / %d\t\n", filepath.Base(d), m, a.Leak, a.NoLeak, a.Inconclusive, b.Leak, b.NoLeak, b.Inconclusive)
			if b.Settle != "" {
				settles = append(settles, fmt.Sprintf("  %s %s: %s", filepath.Base(d), m, b.Settle))
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Println("An inconclusive robust verdict per model, with what would settle it:")
	for _, s := range settles {
		fmt.Println(s)
	}
	return nil
}

// realPaired judges, in every run directory whose seeds hold a model X and
// X+synthetic (a calibration run), the synthetic model against its control
// at each seed, over the first L lifecycles for several L: by the paired
// difference series (analysis.PairedInput, stats.ComparePaired, what the tool
// reported before it took out RocksDB's timer backlog: see realPairedTimer)
// and by the difference of the two fits (stats.CompareFits), native
// heap. A replicate of the control (seed-N/replicate, written by rocksleak
// reliability --replicate) gives the A/A pair by the same two methods.
func realPaired(dirs []string) error {
	var header bool
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, d := range dirs {
		seedDirs, err := sortedSeedDirs(d)
		if err != nil {
			return err
		}
		rows := map[int64]*pairedRow{}
		var lens []int64
		for _, sd := range seedDirs {
			cs, ok, err := readCalibrationSeed(sd)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if !header {
				printPairedHeader(w, cs.model, cs.control)
				header = true
			}
			if lens == nil {
				lens = calibrationLengths(cs.samples[cs.control])
			}
			for _, L := range lens {
				r := rows[L]
				if r == nil {
					r = &pairedRow{}
					rows[L] = r
				}
				if err := r.add(cs, L); err != nil {
					return err
				}
			}
		}
		writePairedRows(w, filepath.Base(d), lens, rows)
	}
	return w.Flush()
}

// pairedRow is one length L of realPaired's table for one run directory.
type pairedRow struct {
	paired, paired95, fits, aaPaired, aaPaired95, aaFits, n, aa int
	cover, coverFits                                            int
	half, est                                                   []float64
}

// add counts seed cs's verdicts over the first L lifecycles into r: the
// synthetic model against its control by each method, the intervals'
// coverage of the known leak, and the A/A pair's verdicts when cs has a
// replicate.
func (r *pairedRow) add(cs calibrationSeed, L int64) error {
	model, control, samples, rep, known := cs.model, cs.control, cs.samples, cs.rep, cs.known
	p, p95, f, err := pairVerdicts(cut(samples[model], L), cut(samples[control], L))
	if err != nil {
		return err
	}
	r.n++
	if p.Verdict == stats.VerdictLeak {
		r.paired++
	}
	if p95.Verdict == stats.VerdictLeak {
		r.paired95++
	}
	if f.Verdict == stats.VerdictLeak {
		r.fits++
	}
	lo, hi, ok := p.Estimate.TInterval(0.95)
	r.half = append(r.half, (hi-lo)/2)
	r.est = append(r.est, p.Estimate.Value)
	if ok && lo <= known && known <= hi {
		r.cover++
	}
	if f.Estimate.Valid && f.Estimate.Low <= known && known <= f.Estimate.High {
		r.coverFits++
	}
	if rep != nil {
		p, p95, f, err := pairVerdicts(cut(rep, L), cut(samples[control], L))
		if err != nil {
			return err
		}
		r.aa++
		if p.Verdict == stats.VerdictLeak {
			r.aaPaired++
		}
		if p95.Verdict == stats.VerdictLeak {
			r.aaPaired95++
		}
		if f.Verdict == stats.VerdictLeak {
			r.aaFits++
		}
	}
	return nil
}

// printPairedHeader prints realPaired's legend on stdout and its table's
// header row to w.
func printPairedHeader(w io.Writer, model, control string) {
	fmt.Printf("\nControlled verdicts on real calibration runs, native heap: %s against %s at each seed, over the first L lifecycles.\n", model, control)
	fmt.Println("paired = slope of the series model − control at shared lifecycle counts (stats.ComparePaired); fits = difference of the two fits (stats.CompareFits).")
	fmt.Println("A/A = the control against its replicate run (same scenario and seed, run after it), when present.")
	fmt.Println("cover = 95% intervals containing the leak as the allocator counts it (glibc: malloc's chunk, n + 8 rounded up to 16 bytes; 272 B for 256).")
	fmt.Printf("paired: leak and false at the verdict's level (stats.PairedConfidence, %s) and, for comparison, at 95%%; half-width of the 95%% interval.\n", units.FormatPercent(stats.PairedConfidence))
	fmt.Fprintln(w, "run\tL\tseeds\tpaired: leak\tat 95%\tcover\tmean ± sd\tmedian half-width\t|\tfits: leak\tcover\t|\tA/A seeds\tpaired false\tat 95%\tfits false\t")
}

// writePairedRows writes run name's rows, one per length in lens with any
// seed judged, to w.
func writePairedRows(w io.Writer, name string, lens []int64, rows map[int64]*pairedRow) {
	for _, L := range lens {
		r := rows[L]
		if r == nil || r.n == 0 {
			continue
		}
		aaP, aaP95, aaF := "—", "—", "—"
		if r.aa > 0 {
			aaP, aaP95, aaF = fmt.Sprintf("%d/%d", r.aaPaired, r.aa), fmt.Sprintf("%d/%d", r.aaPaired95, r.aa), fmt.Sprintf("%d/%d", r.aaFits, r.aa)
		}
		m, sd := stat.MeanStdDev(r.est, nil)
		fmt.Fprintf(w, "%s\t%d\t%d\t%d/%d\t%d/%d\t%d/%d\t%.0f ± %.0f\t%.0f\t|\t%d/%d\t%d/%d\t|\t%d\t%s\t%s\t%s\t\n", name, L, r.n, r.paired, r.n, r.paired95, r.n, r.cover, r.n,
			m, sd, stats.Median(r.half), r.fits, r.n, r.coverFits, r.n, r.aa, aaP, aaP95, aaF)
	}
}

// sortedSeedDirs is run directory d's seed-* directories in seed order.
func sortedSeedDirs(d string) ([]string, error) {
	seedDirs, err := filepath.Glob(filepath.Join(d, "seed-*"))
	if err != nil {
		return nil, err
	}
	sort.Slice(seedDirs, func(i, j int) bool { return seedNum(seedDirs[i]) < seedNum(seedDirs[j]) })
	return seedDirs, nil
}

// calibrationLengths is the lengths L (512 to 4096 lifecycles) the
// calibration tables judge, those within control's last sample.
func calibrationLengths(control []schema.Sample) []int64 {
	maxL := control[len(control)-1].Lifecycles
	var lens []int64
	for _, L := range []int64{512, 1024, 1536, 2048, 3072, 4096} {
		if L <= maxL {
			lens = append(lens, L)
		}
	}
	return lens
}

// pairVerdicts is the controlled verdict of model against control on the
// native heap: paired at the tool's level (stats.PairedConfidence), paired at
// 95% for comparison, and by the two fits.
func pairVerdicts(model, control []schema.Sample) (paired, paired95, fits stats.Comparison, err error) {
	if in, ok := analysis.PairedInput(model, control, analysis.SignalNativeHeap); ok {
		if paired, _, err = stats.ComparePaired(in, analysis.Options(), stats.CompareOptions{}); err != nil {
			return paired, paired95, fits, err
		}
		if paired95, _, err = stats.ComparePaired(in, analysis.Options(), stats.CompareOptions{Confidence: 0.95}); err != nil {
			return paired, paired95, fits, err
		}
	}
	fm, err := analysis.FitSamples(model)
	if err != nil {
		return paired, paired95, fits, err
	}
	fc, err := analysis.FitSamples(control)
	if err != nil {
		return paired, paired95, fits, err
	}
	fits = analysis.CompareSignal(*fm[analysis.SignalNativeHeap].Total, *fc[analysis.SignalNativeHeap].Total, stats.CompareOptions{})
	return paired, paired95, fits, nil
}

// chunkBytes is what the allocator counts in use for one malloc(n): under
// glibc the chunk, n plus its 8-byte size field rounded up to 16 bytes (at
// least 32); otherwise n (jemalloc's size classes include 256 and every
// power of two).
func chunkBytes(n int, a spec.Allocator) float64 {
	if a == spec.AllocatorGlibc || a == "" {
		return float64(max(32, (n+8+15)&^15))
	}
	return float64(n)
}

// cut keeps the samples up to L lifecycles.
func cut(ss []schema.Sample, L int64) []schema.Sample {
	n := 0
	for n < len(ss) && ss[n].Lifecycles <= L {
		n++
	}
	return ss[:n]
}
func seedNum(dir string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "seed-"))
	return n
}
