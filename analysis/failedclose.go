package analysis

import (
	"errors"
	"fmt"
	"math"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// FailedCloseConfidence is the level of every interval of FailedCloseCost.
const FailedCloseConfidence = 0.95

// FailedCloseCost is what one failed close costs one model, from a controlled
// pair of runs: the same model, scenario and seed (so the same op stream from
// package workload, whose faults are drawn apart from its keys) run with
// closes failing (faulty) and with close_failure_rate 0 (control).
type FailedCloseCost struct {
	Signal       string
	FailedCloses int64 // the faulty run's, at its last paired sample
	Samples      int   // paired samples (shared records-written counts)
	// PerRecord is the paired difference faulty − control per record written,
	// as the controlled verdict judges a pair (ComparePairedCovariate, the
	// timer-backlog difference taken out), at FailedCloseConfidence.
	PerRecord stats.Comparison
	// FailedClosesPerRecord is the faulty run's failed closes per record
	// written over the same samples (BatchMeanDifferences of its count).
	FailedClosesPerRecord float64
	// PerFailedClose is PerRecord over FailedClosesPerRecord: bytes per
	// failed close, with PerRecord's interval scaled alike.
	PerFailedClose stats.Estimate
	// WhileRestoring is how far the paired difference stands above its own
	// line at the first paired sample after a restore (the faulty run's
	// restore count moved since the previous paired sample),
	// against the other samples: the difference of the two means of the
	// residuals with a Welch interval. !Valid with fewer than 2 of either.
	WhileRestoring   stats.Estimate
	RestoringSamples int
}

// ErrNoFailedClosePair: the two runs share too few records-written counts,
// or the faulty run has no failed closes (or the control has some).
var ErrNoFailedClosePair = errors.New("no failed-close pair")

// PerFailedClose estimates FailedCloseCost on signal sig from the samples of
// one model in the faulty and the control run.
//
// The pair is keyed by records written, not by lifecycles: records advance
// with the op stream alone, while a failed close's restore adds lifecycles
// (the task's stores reopened, window segments created and expired as the
// changelog replays) that the control never runs. At each records count both
// runs sampled (the first non-timer sample at it), faulty − control is the
// paired series; its slope per record (BatchMeanDifferences, as the
// controlled verdict's) over failed closes per record is the cost per failed
// close, everything the failed close brings about included: the extra
// lifecycles of its restore, what the wiped task's stores held, and the
// RocksDB timer entries of the restore's DB opens (TimerBacklog: about 200 B
// each, freed within 600 s). Those move in step with the failed closes, so
// unlike the controlled verdict this does not fit the timer-backlog
// difference out; the difference of the two runs' wall-clock paces stays in
// the noise. The interval is that of the slope, scaled: the failed closes
// are counted, not estimated.
func PerFailedClose(faulty, control []schema.Sample, sig string) (FailedCloseCost, error) {
	out := FailedCloseCost{Signal: sig}
	in, fails, restoring := pairedByRecords(faulty, control, sig)
	out.Samples = len(in.Y)
	if len(in.Y) < 3 {
		return out, fmt.Errorf("%w: the runs share %d records-written counts (need 3)", ErrNoFailedClosePair, len(in.Y))
	}
	out.FailedCloses = int64(fails[len(fails)-1])
	if out.FailedCloses <= 0 {
		return out, fmt.Errorf("%w: no failed closes in the faulty run (or as many in the control)", ErrNoFailedClosePair)
	}
	// A constant covariate takes nothing out: the timer backlog moves with
	// the restores' own opens, in step with the failed closes, so fitting it
	// would take out the cost measured (see the doc comment).
	c, fit, err := stats.ComparePairedCovariate(in, make([]float64, len(in.Y)), Options(), stats.CompareOptions{Confidence: FailedCloseConfidence})
	if err != nil {
		return out, err
	}
	out.PerRecord = c
	w := fit.WarmupSamples
	k := stats.BatchMeanDifferences(stats.Input{Lifecycles: in.Lifecycles[w:], Y: fails[w:]}, stats.DefaultBatches, FailedCloseConfidence)
	if !k.Valid || !(k.Value > 0) {
		k.Value = fails[len(fails)-1] / (in.Lifecycles[len(in.Lifecycles)-1] - in.Lifecycles[0])
	}
	out.FailedClosesPerRecord = k.Value
	e := c.Estimate
	out.PerFailedClose = stats.Estimate{Value: e.Value / k.Value, Low: e.Low / k.Value, High: e.High / k.Value,
		SE: e.SE / k.Value, DF: e.DF, Valid: e.Valid}
	out.WhileRestoring, out.RestoringSamples = whileRestoring(in, restoring)
	return out, nil
}

// pairedByRecords is the series faulty − control of sig at every records
// count both runs sampled (first non-timer sample at each), in the faulty
// run's order, with the x-axis (stats.Input.Lifecycles) records written; per
// sample the failed closes faulty − control,
// and whether the faulty run's restore count moved since the previous paired
// sample (a restore ran since: the first sample that holds what it left).
func pairedByRecords(faulty, control []schema.Sample, sig string) (in stats.Input, fails []float64, restoring []bool) {
	first := map[int64]schema.Sample{}
	for _, s := range control {
		if _, seen := first[s.Records]; !seen && s.Trigger != schema.TriggerTimer {
			first[s.Records] = s
		}
	}
	in.Unit = Describe(sig).statsUnit
	seen := map[int64]bool{}
	var prevRestores int64
	for _, s := range faulty {
		if s.Trigger == schema.TriggerTimer {
			continue
		}
		if seen[s.Records] {
			continue
		}
		seen[s.Records] = true
		c, ok := first[s.Records]
		if !ok {
			continue
		}
		moved := s.Restores != prevRestores
		prevRestores = s.Restores
		in.Lifecycles = append(in.Lifecycles, float64(s.Records))
		in.Y = append(in.Y, SignalValue(s, sig)-SignalValue(c, sig))
		fails = append(fails, float64(s.FailedCloses-c.FailedCloses))
		restoring = append(restoring, moved)
	}
	return in, fails, restoring
}

// whileRestoring is FailedCloseCost.WhileRestoring: the residuals of Y on 1
// and records, their mean at the restoring samples less their mean at
// the others, with a Welch interval at FailedCloseConfidence.
func whileRestoring(in stats.Input, restoring []bool) (stats.Estimate, int) {
	var during []float64
	resid := residuals(in)
	var other []float64
	for i, r := range resid {
		if restoring[i] {
			during = append(during, r)
		} else {
			other = append(other, r)
		}
	}
	if len(during) < 2 || len(other) < 2 {
		return stats.Estimate{}, len(during)
	}
	md, vd := stat.MeanVariance(during, nil)
	mo, vo := stat.MeanVariance(other, nil)
	a, b := vd/float64(len(during)), vo/float64(len(other))
	se := math.Sqrt(a + b)
	df := (a + b) * (a + b) / (a*a/float64(len(during)-1) + b*b/float64(len(other)-1))
	if !(se > 0) || math.IsNaN(df) {
		return stats.Estimate{Value: md - mo}, len(during)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.5 + FailedCloseConfidence/2)
	d := md - mo
	return stats.Estimate{Value: d, Low: d - t*se, High: d + t*se, SE: se, DF: df, Valid: true}, len(during)
}

// residuals are Y less its least-squares line on records (zeros when it
// cannot be fitted).
func residuals(in stats.Input) []float64 {
	n := len(in.Y)
	X := mat.NewDense(n, 2, nil)
	for i := range n {
		X.Set(i, 0, 1)
		X.Set(i, 1, in.Lifecycles[i])
	}
	if r, err := stats.OLS(X, in.Y); err == nil {
		return r.Resid
	}
	return make([]float64, n)
}
