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
// what would settle it); and, when leaky and fixed both ran (or Kafka's
// 4.3.0 and 4.3.1 jars, kafka-4.3.0 and kafka-4.3.1), what the fix removes:
// the difference leaky − fixed of their native heaps' growth per lifecycle
// with its 95% interval (the comparison of the two runs' fits), said to be
// removed only when that interval lies above zero.
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
		if !fixPair(c.A, c.B) || c.Signal != analysis.SignalNativeHeap {
			continue
		}
		d := c.Difference
		switch {
		case d.Valid && d.Low > 0:
			out = append(out, fmt.Sprintf("The fix removes %s of native heap per lifecycle (%s − %s, 95%% CI).", fmtEst(d, "bytes", false), c.A, c.B))
		default:
			out = append(out, fmt.Sprintf("What the fix removes is not yet told from zero: %s − %s, native heap %s per lifecycle (95%% CI).", c.A, c.B, fmtEst(d, "bytes", true)))
		}
	}
	return append(out, appFindings(r)...)
}

// fixPair reports whether a − b is 4.3.0 against 4.3.1: the Go engine's
// models (leaky, fixed) or Kafka's own jars (kafka-4.3.0, kafka-4.3.1).
func fixPair(a, b string) bool {
	return (a == "leaky" && b == "fixed") || (a == "kafka-4.3.0" && b == "kafka-4.3.1")
}
