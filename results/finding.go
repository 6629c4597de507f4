package results

import (
	"fmt"
	"github.com/rocksleak/rocksleak/internal/units"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// modelLabels name the models that stand for a Kafka release by that
// release first, as a user asks about it.
var modelLabels = map[string]string{"leaky": "4.3.0 (leaky)", "fixed": "4.3.1 (fixed)"}

func modelLabel(m string) string {
	if l, ok := modelLabels[m]; ok {
		return l
	}
	return m
}

// Finding is the run's answer in a few sentences, the first lines of the
// summary and of report.md: per model, its verdict with the native heap's
// growth per lifecycle and its 95% interval (for an inconclusive verdict,
// what would settle it); and, when leaky and fixed both ran, what the fix
// removes: the difference leaky − fixed of their native heaps' growth per
// lifecycle with its 95% interval (the comparison of the two runs' fits),
// said to be removed only when that interval lies above zero.
func Finding(r *schema.Result) []string {
	var out []string
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.Verdict == nil {
			continue
		}
		var nat stats.Estimate
		if f, ok := run.Fits[analysis.SignalNativeHeap]; ok && f.Total != nil {
			nat = f.Total.PerLifecycle
		}
		est := fmtEst(nat, "bytes", true)
		floor := units.FormatBytes(r.Floors.NativeHeap)
		switch w := analysis.VerdictWord(run.Verdict.Leak); w {
		case analysis.WordLeak:
			out = append(out, fmt.Sprintf("%s leaks: native heap %s per lifecycle (95%% CI).", modelLabel(m), est))
		case analysis.WordNoLeak:
			out = append(out, fmt.Sprintf("%s does not leak: native heap %s per lifecycle (95%% CI), below the %s floor, and RSS below its floor.", modelLabel(m), est, floor))
		default:
			s := fmt.Sprintf("%s: inconclusive, native heap %s per lifecycle (95%% CI)", modelLabel(m), est)
			if run.Verdict.Settle != "" {
				s += "; to settle it: " + run.Verdict.Settle
			}
			out = append(out, s+".")
		}
	}
	for _, c := range r.Comparisons {
		if c.A != "leaky" || c.B != "fixed" || c.Signal != analysis.SignalNativeHeap {
			continue
		}
		d := c.Difference
		switch {
		case d.Valid && d.Low > 0:
			out = append(out, fmt.Sprintf("The fix removes %s of native heap per lifecycle (leaky − fixed, 95%% CI).", fmtEst(d, "bytes", false)))
		default:
			out = append(out, fmt.Sprintf("What the fix removes is not yet told from zero: leaky − fixed, native heap %s per lifecycle (95%% CI).", fmtEst(d, "bytes", true)))
		}
	}
	return out
}
