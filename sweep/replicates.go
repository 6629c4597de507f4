package sweep

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// Replicates collects, for --replicate, each replicated model's first and
// replicate slopes per seed (native heap and RSS, lifecycle-only fits) with
// their reported standard errors.
type Replicates struct {
	models []string
	pairs  map[string][]replicatePair // by "model/signal"
}

// replicatePair is one seed's two runs of a model on one signal: the
// slopes and SEs the fits report, and the batch-means slopes and SEs
// (analysis.BatchMeans) for comparison.
type replicatePair struct {
	first, second, seFirst, seSecond     float64
	bFirst, bSecond, bseFirst, bseSecond float64
}

// NewReplicates collects the replicate pairs of models (none: Write prints
// nothing).
func NewReplicates(models []string) *Replicates {
	return &Replicates{models: models, pairs: map[string][]replicatePair{}}
}

// Pair tallies into rep, for each replicated model, the A/A pair of a seed's
// first run (result first, samples once) and its replicate (result res,
// samples again) (analysis.CompareReplicate: the replicate against the first
// run, paired difference series, native heap and RSS, under "<model>
// (replicate) vs <model>"), and records both runs' slopes; it returns the
// words for the seed's progress line. reliability calls it with the runs'
// outputs, merge with what they wrote (result.json and samples.csv), so both
// tally the same.
func (rp *Replicates) Pair(rep *schema.Reliability, first *schema.Result, once map[string][]schema.Sample, res *schema.Result, again map[string][]schema.Sample) []string {
	var words []string
	for _, m := range rp.models {
		cs := analysis.CompareReplicate(m, again[m], once[m])
		TallyControlled(rep, cs)
		for _, c := range cs {
			if c.Signal == analysis.SignalNativeHeap {
				words = append(words, fmt.Sprintf("A/A %s native %s", m, c.Verdict))
			}
		}
		a, b := first.Runs[m], res.Runs[m]
		if a == nil || b == nil {
			continue
		}
		for _, sig := range []string{analysis.SignalNativeHeap, analysis.SignalRSS} {
			sa, oka := totalSE(a, sig)
			sb, okb := totalSE(b, sig)
			if !oka || !okb {
				continue
			}
			ba := analysis.BatchMeans(once[m], sig, a.Fits[sig].Total.WarmupSamples)
			bb := analysis.BatchMeans(again[m], sig, b.Fits[sig].Total.WarmupSamples)
			if ba.Valid && bb.Valid {
				rp.pairs[m+"/"+sig] = append(rp.pairs[m+"/"+sig], replicatePair{totalSlope(a, sig), totalSlope(b, sig), sa, sb,
					ba.Value, bb.Value, ba.SE, bb.SE})
			}
		}
	}
	return words
}

// Write prints, per replicated model and signal, the spread of the slope
// against the median reported SE, for the fits' intervals (what the verdicts
// use) and for batch means (analysis.BatchMeans): run to run at a fixed seed,
// the SD of one run's slope from the pairs, √(Σ(a−b)²/2n), which does not
// count how the workload differs between seeds; and across seeds, the SD of
// the first runs' slopes.
func (rp *Replicates) Write(w io.Writer) {
	if len(rp.models) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "replicate (same seed, run twice)\tsignal\tseeds\tfit: run-to-run SD\tacross seeds SD\tmedian SE\tspread/SE run, seeds\tbatch means: run-to-run SD\tacross seeds SD\tmedian SE\tspread/SE run, seeds")
	for _, m := range rp.models {
		for _, sig := range []string{analysis.SignalNativeHeap, analysis.SignalRSS} {
			ps := rp.pairs[m+"/"+sig]
			if len(ps) == 0 {
				continue
			}
			fit, bm := make([]replicatePair, len(ps)), make([]replicatePair, len(ps))
			for i, p := range ps {
				fit[i] = replicatePair{first: p.first, second: p.second, seFirst: p.seFirst, seSecond: p.seSecond}
				bm[i] = replicatePair{first: p.bFirst, second: p.bSecond, seFirst: p.bseFirst, seSecond: p.bseSecond}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", m, analysis.Describe(sig).Name, len(ps), spreadCells(fit), spreadCells(bm))
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "spread/SE near 1 means the reported intervals carry the variation of another run at the same seed (run) or at another seed (seeds); above 1.33 they are narrower than it, below 0.75 wider (goal across seeds: 0.75 to 1.33)")
}

// spreadCells renders the run-to-run SD, across-seed SD, median SE and the
// two ratios of ps.
func spreadCells(ps []replicatePair) string {
	sd, se := replicateSpread(ps)
	firsts := make([]float64, len(ps))
	for i, p := range ps {
		firsts[i] = p.first
	}
	across := stat.StdDev(firsts, nil) // NaN below 2 values
	ratio := func(v float64) string {
		if se <= 0 || math.IsNaN(v) {
			return "—"
		}
		return fmt.Sprintf("%.2f", v/se)
	}
	return fmt.Sprintf("%.0f B\t%.0f B\t%.0f B\t%s, %s", sd, across, se, ratio(sd), ratio(across))
}

// replicateSpread returns the SD of one run's slope from replicate pairs,
// √(Σ(a−b)²/2n), and the median of all the pairs' reported SEs.
func replicateSpread(ps []replicatePair) (sd, medianSE float64) {
	var ss float64
	var ses []float64
	for _, p := range ps {
		ss += (p.first - p.second) * (p.first - p.second)
		ses = append(ses, p.seFirst, p.seSecond)
	}
	return math.Sqrt(ss / float64(2*len(ps))), stats.Median(ses)
}
