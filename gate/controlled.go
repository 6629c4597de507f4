package gate

import (
	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// NativeBetweenRunSD is the seed-to-seed standard deviation of a model's
// native-heap slope that a within-run interval cannot see, in bytes per
// lifecycle: the fixed model's native heap over 20 seeds of kafka-20616 rose
// +466 ± 59 B/lifecycle (issue 11). It widens a controlled verdict between
// two separate runs (stats.CompareOptions.BetweenRunSD, 19 df).
const NativeBetweenRunSD = 59

// Controlled is the gate's controlled verdict: the candidate's native-heap
// growth per lifecycle against the baseline's (candidate − baseline,
// stats.CompareFits), with the interval of the difference (both runs'
// standard errors, Welch–Satterthwaite df, and the between-run term for two
// separate runs). Its margin is the growth the policy allows above the
// baseline (the native_growth_per_lifecycle check's limit − baseline), or 0
// (any significant growth) when the policy has no such check. A "leak"
// fails the gate.
type Controlled struct {
	Signal     string         `json:"signal"`
	Difference stats.Estimate `json:"difference_per_lifecycle"`
	Verdict    string         `json:"verdict"`
	Margin     float64        `json:"margin"`
	Reason     string         `json:"reason"`
}

// controlled judges the candidate run against the baseline run on the
// native heap; nil when either lacks a lifecycle-only fit or they are the
// same run of the same model. sameRun says whether both come from one
// result (one process each, run side by side: no between-run term).
func controlled(base, cand *schema.Run, sameRun bool, margin float64) *Controlled {
	if base == nil || cand == nil || base == cand {
		return nil
	}
	fb, okb := base.Fits[analysis.SignalNativeHeap]
	fc, okc := cand.Fits[analysis.SignalNativeHeap]
	if !okb || !okc || fb.Total == nil || fc.Total == nil {
		return nil
	}
	opt := stats.CompareOptions{Margin: max(margin, 0)}
	if !sameRun {
		opt.BetweenRunSD, opt.BetweenRunDF = NativeBetweenRunSD, 19
	}
	c := analysis.CompareSignal(*fc.Total, *fb.Total, opt)
	return &Controlled{Signal: analysis.SignalNativeHeap, Difference: c.Estimate, Verdict: c.Verdict.String(), Margin: opt.Margin,
		Reason: "native heap, candidate − baseline: " + c.Reason}
}

// controlledMargin is the growth per lifecycle the policy allows the
// candidate's native heap above the baseline's: the first
// native_growth_per_lifecycle check's limit − baseline value, or 0.
func controlledMargin(checks []CheckResult) float64 {
	for _, c := range checks {
		if c.Metric == "native_growth_per_lifecycle" && c.Baseline != nil {
			return c.Limit - c.Baseline.Value
		}
	}
	return 0
}
