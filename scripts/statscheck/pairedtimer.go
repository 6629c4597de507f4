package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

// realPairedTimer prints, for every run directory of a synthetic-leak
// calibration (seed-N with X+synthetic and X, and X's replicate in
// seed-N/replicate), the controlled verdict on the native heap at each length
// L by the tool's paired verdict (analysis.PairedTimerInput,
// stats.ComparePairedCovariate: the difference less its fitted share of
// RocksDB's timer backlog, then batch means) and,
// for comparison, by the batch means of the raw difference
// (stats.ComparePaired, the verdict before it): the leak found at how many
// seeds, the A/A pairs called, the estimates' mean ± sd across seeds, their
// median standard error and the 95% intervals' coverage of the leak as the
// allocator counts it.
func realPairedTimer(dirs []string) error {
	fmt.Println("\nThe paired verdict less its fitted share of RocksDB's timer backlog (timer: the tool's, stats.ComparePairedCovariate) and")
	fmt.Println("batch means of the raw difference (batch: stats.ComparePaired, before it), native heap, at the verdict's level (99%),")
	fmt.Println("over the first L lifecycles of each seed. found = leak called on X+synthetic − X; A/A = X's replicate − X called a leak;")
	fmt.Println("cover = 95% intervals containing the leak as the allocator counts it; SE = median standard error.")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "run\tL\tmethod\tfound\tA/A\tcover\tsynthetic mean ± sd\tSE\tA/A mean ± sd\tSE\t")
	var notes []string
	for _, d := range dirs {
		cells, resid, lens, err := tallyPairedTimer(d)
		if err != nil {
			return err
		}
		if len(resid.gamma) > 0 {
			notes = append(notes, fmt.Sprintf("%s, A/A pairs at full length: timer backlog coefficient median %.0f B/entry [%.0f, %.0f]; residual sd median %.1f KiB, autocorrelation at lags 1-6 %s",
				filepath.Base(d), stats.Median(resid.gamma), minOf(resid.gamma), maxOf(resid.gamma), stats.Median(resid.sd)/1024, resid.acf()))
		}
		writeTimerRows(w, filepath.Base(d), lens, cells)
		notes = append(notes, fewestLifecycles(filepath.Base(d), lens, func(L int64) *cell { return cells[timerKey{L, "timer"}] }))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Println(n)
	}
	return nil
}

// timerMethods are the methods of realPairedTimer's table, in its order.
var timerMethods = []string{"timer", "batch"}

// timerKey is a cell of realPairedTimer's table: a length and a method.
type timerKey struct {
	L      int64
	method string
}

// tallyPairedTimer judges run directory d's calibration seeds, in seed
// order, at each length and method: cells by length and method, the A/A
// pairs' residuals at full length, and the lengths (set by the first seed).
func tallyPairedTimer(d string) (map[timerKey]*cell, residuals, []int64, error) {
	var resid residuals
	seedDirs, err := sortedSeedDirs(d)
	if err != nil {
		return nil, resid, nil, err
	}
	cells := map[timerKey]*cell{}
	var lens []int64
	for _, sd := range seedDirs {
		cs, ok, err := readCalibrationSeed(sd)
		if err != nil {
			return nil, resid, nil, err
		}
		if !ok {
			continue
		}
		if cs.rep != nil {
			resid.add(cs.rep, cs.samples[cs.control])
		}
		if lens == nil {
			lens = calibrationLengths(cs.samples[cs.control])
		}
		for _, L := range lens {
			for _, method := range timerMethods {
				c := cells[timerKey{L, method}]
				if c == nil {
					c = &cell{}
					cells[timerKey{L, method}] = c
				}
				c.add(method, cs, L)
			}
		}
	}
	return cells, resid, lens, nil
}

// add counts seed cs's paired verdict by method over the first L lifecycles
// into c (nothing when the verdict fails): leak found, the 95% interval's
// coverage of the known leak, and the A/A pair's verdict when cs has a
// replicate.
func (c *cell) add(method string, cs calibrationSeed, L int64) {
	p, ok := pairedBy(method, cut(cs.samples[cs.model], L), cut(cs.samples[cs.control], L))
	if !ok {
		return
	}
	c.n++
	if p.Verdict == stats.VerdictLeak {
		c.found++
	}
	c.est, c.se = append(c.est, p.Estimate.Value), append(c.se, p.Estimate.SE)
	if lo, hi, ok := p.Estimate.TInterval(0.95); ok && lo <= cs.known && cs.known <= hi {
		c.cover++
	}
	if cs.rep == nil {
		return
	}
	if a, ok := pairedBy(method, cut(cs.rep, L), cut(cs.samples[cs.control], L)); ok {
		c.aa++
		if a.Verdict == stats.VerdictLeak {
			c.aaCalled++
		}
		c.aaEst, c.aaSE = append(c.aaEst, a.Estimate.Value), append(c.aaSE, a.Estimate.SE)
	}
}

// writeTimerRows writes run name's rows, one per length in lens and method
// with any seed judged, to w.
func writeTimerRows(w io.Writer, name string, lens []int64, cells map[timerKey]*cell) {
	for _, L := range lens {
		for _, method := range timerMethods {
			c := cells[timerKey{L, method}]
			if c == nil || c.n == 0 {
				continue
			}
			m, sd := stat.MeanStdDev(c.est, nil)
			aa, aaSE := "—", "—"
			if c.aa > 1 {
				am, asd := stat.MeanStdDev(c.aaEst, nil)
				aa, aaSE = fmt.Sprintf("%+.0f ± %.0f", am, asd), fmt.Sprintf("%.1f", stats.Median(c.aaSE))
			}
			fmt.Fprintf(w, "%s\t%d\t%s\t%d/%d\t%d/%d\t%d/%d\t%+.0f ± %.0f\t%.1f\t%s\t%s\t\n", name, L, method,
				c.found, c.n, c.aaCalled, c.aa, c.cover, c.n, m, sd, stats.Median(c.se), aa, aaSE)
		}
	}
}

// cell is one length and method of realPairedTimer's table.
type cell struct {
	found, aaCalled, cover, n, aa int
	est, se, aaEst, aaSE          []float64
}

// fewestLifecycles says, for run directory name, the fewest of lens at which
// the tool's paired verdict (cellAt) found the leak at every seed with no
// A/A pair called: the sensitivity the run shows, or that no length did.
func fewestLifecycles(name string, lens []int64, cellAt func(int64) *cell) string {
	for _, L := range lens {
		if c := cellAt(L); c != nil && c.n > 0 && c.found == c.n && c.aaCalled == 0 {
			return fmt.Sprintf("%s: the tool's paired verdict finds the leak at all %d seeds, with %d of %d A/A pairs called, from %d lifecycles (of %v)", name, c.n, c.aaCalled, c.aa, L, lens)
		}
	}
	return fmt.Sprintf("%s: the tool's paired verdict does not find the leak at every seed with no A/A pair called at any of %v lifecycles", name, lens)
}

// pairedBy is the paired controlled verdict of model against control on the
// native heap by method "timer" (the tool's) or "batch" (batch means of the
// raw difference); ok is false when the runs share too few lifecycle counts
// or the verdict fails.
func pairedBy(method string, model, control []schema.Sample) (stats.Comparison, bool) {
	in, cov, ok := analysis.PairedTimerInput(model, control, analysis.SignalNativeHeap)
	if !ok {
		return stats.Comparison{}, false
	}
	var c stats.Comparison
	var err error
	if method == "timer" {
		c, _, err = stats.ComparePairedCovariate(in, cov, analysis.Options(), stats.CompareOptions{})
	} else {
		c, _, err = stats.ComparePaired(in, analysis.Options(), stats.CompareOptions{})
	}
	return c, err == nil && c.Estimate.Valid
}

// residuals gathers, over A/A pairs, the fitted timer-backlog coefficient of
// the native heap's paired difference (least squares on 1, lifecycles and the
// backlog difference, every sample), the residuals' sd and their
// autocorrelations at lags 1-6.
type residuals struct {
	gamma, sd []float64
	acfs      [][]float64
}

func (r *residuals) add(model, control []schema.Sample) {
	in, cov, ok := analysis.PairedTimerInput(model, control, analysis.SignalNativeHeap)
	if !ok || len(in.Y) < 50 {
		return
	}
	n := len(in.Y)
	X := mat.NewDense(n, 3, nil)
	for i := range n {
		X.Set(i, 0, 1)
		X.Set(i, 1, in.Lifecycles[i])
		X.Set(i, 2, cov[i])
	}
	var beta mat.VecDense
	if err := beta.SolveVec(X, mat.NewVecDense(n, in.Y)); err != nil {
		return
	}
	res := make([]float64, n)
	for i := range n {
		res[i] = in.Y[i] - beta.AtVec(0) - beta.AtVec(1)*in.Lifecycles[i] - beta.AtVec(2)*cov[i]
	}
	_, sd := stat.MeanStdDev(res, nil)
	acf := make([]float64, 6)
	for k := range acf {
		acf[k] = stat.Correlation(res[:n-k-1], res[k+1:], nil)
	}
	r.gamma, r.sd, r.acfs = append(r.gamma, beta.AtVec(2)), append(r.sd, sd), append(r.acfs, acf)
}

// acf is the median autocorrelation at each lag, in words.
func (r *residuals) acf() string {
	var out []string
	for k := range 6 {
		var v []float64
		for _, a := range r.acfs {
			v = append(v, a[k])
		}
		out = append(out, fmt.Sprintf("%.2f", stats.Median(v)))
	}
	return strings.Join(out, ", ")
}

func minOf(x []float64) float64 { return floats.Min(x) }
func maxOf(x []float64) float64 { return floats.Max(x) }

// calibrationSeed is one seed directory of a synthetic-leak calibration run:
// the X+synthetic model and its control X, the seed's samples by model, X's
// replicate's samples (nil without one) and the leak as the allocator
// counts it.
type calibrationSeed struct {
	model, control string
	samples        map[string][]schema.Sample
	rep            []schema.Sample
	known          float64
}

// readCalibrationSeed reads seed directory sd; ok is false when it has no
// result or no X+synthetic model with its control.
func readCalibrationSeed(sd string) (cs calibrationSeed, ok bool, err error) {
	res, err := schema.Read(filepath.Join(sd, "result.json"))
	if err != nil {
		return cs, false, nil
	}
	if cs.samples, err = schema.ReadSamplesCSV(filepath.Join(sd, "samples.csv")); err != nil {
		return cs, false, err
	}
	for _, m := range res.Models {
		if c, found := strings.CutSuffix(m, spec.SyntheticSuffix); found && cs.samples[c] != nil {
			cs.model, cs.control = m, c
		}
	}
	if cs.model == "" {
		return cs, false, nil
	}
	cs.known = chunkBytes(res.Scenario.SyntheticLeakBytes, res.Runs[cs.model].Allocator)
	if rs, err := schema.ReadSamplesCSV(filepath.Join(sd, "replicate", "samples.csv")); err == nil {
		cs.rep = rs[cs.control]
	}
	return cs, true, nil
}
