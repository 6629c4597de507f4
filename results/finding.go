package results

import (
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/internal/units"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
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

// engineLabel is m's label with what it ran on: "kafka-4.3.0 (Kafka's jars,
// rocksdbjni 10.1.3)" for the JVM engine, "4.3.0 (leaky; Go model, RocksDB
// 7.8.3)" for the Go engine; the bare label when the run recorded no
// RocksDB version.
func engineLabel(m string, run *schema.Run) string {
	v := run.RocksDBVersion
	switch {
	case v == "":
		return modelLabel(m)
	case isJVM(m):
		return fmt.Sprintf("%s (Kafka's jars, rocksdbjni %s)", m, v)
	}
	l := modelLabel(m)
	if strings.HasSuffix(l, ")") {
		return fmt.Sprintf("%s; Go model, RocksDB %s)", strings.TrimSuffix(l, ")"), v)
	}
	return fmt.Sprintf("%s (Go model, RocksDB %s)", l, v)
}

// isJVM reports whether m runs Kafka's jars (a kafka-<version> model, with
// or without its suffixes: "kafka-4.3.1+read-options-fix" too).
func isJVM(m string) bool {
	rn, err := spec.ParseRunName(m, nil)
	return err == nil && rn.JVM()
}

// Finding is the run's answer in a few sentences, the first lines of the
// summary and of report.md: per model, its verdict with the native heap's
// growth per lifecycle and its 95% interval (for an inconclusive verdict,
// what would settle it); and, when leaky and fixed both ran (or Kafka's
// 4.3.0 and 4.3.1 jars, kafka-4.3.0 and kafka-4.3.1), what the fix removes:
// the difference leaky − fixed of their native heaps' growth per lifecycle
// with its interval, said to be removed only when that interval lies above
// zero: the paired controlled verdict (model − control sampled at the same
// lifecycle counts, r.Controlled, 99%) when the run has it for the pair
// (kafka-4.3.0 against kafka-4.3.1), else the comparison of the two runs'
// fits (95%). A paired verdict that is not a leak though its interval lies
// above zero (a blocking flag withheld it) is "not settled", with its flag. Each model is named with the RocksDB it ran on (engineLabel).
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
		floor := units.FormatBytes(r.Floors.NativeHeap)
		if b := run.Verdict.CacheBound; b != nil {
			out = append(out, cacheBoundFinding(m, run, b, floor))
			continue
		}
		est := fmtEst(nat, "bytes", true)
		switch w := analysis.VerdictWord(run.Verdict.Leak); w {
		case analysis.WordLeak:
			out = append(out, fmt.Sprintf("%s leaks: native heap %s per lifecycle (95%% CI).", engineLabel(m, run), est))
		case analysis.WordNoLeak:
			out = append(out, fmt.Sprintf("%s does not leak: native heap %s per lifecycle (95%% CI), below the %s floor, and RSS below its floor.", engineLabel(m, run), est, floor))
		default:
			s := fmt.Sprintf("%s: inconclusive, native heap %s per lifecycle (95%% CI)", engineLabel(m, run), est)
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
		d, how := c.Difference, "95% CI"
		p := pairedFix(r, c.A, c.B)
		if p != nil {
			d, how = p.Difference, fmt.Sprintf("paired, %.0f%% CI", 100*schema.ControlledConfidence(*p))
		}
		switch {
		case p != nil && p.Verdict != analysis.WordLeak && d.Valid && d.Low > 0:
			out = append(out, fmt.Sprintf("What the fix removes is not settled: %s − %s, native heap %s per lifecycle (%s), %s%s.",
				c.A, c.B, fmtEst(d, "bytes", true), how, p.Verdict, controlledWithheld(*p)))
		case d.Valid && d.Low > 0:
			out = append(out, fmt.Sprintf("The fix removes %s of native heap per lifecycle (%s − %s, %s).", fmtEst(d, "bytes", false), c.A, c.B, how))
		default:
			out = append(out, fmt.Sprintf("What the fix removes is not yet told from zero: %s − %s, native heap %s per lifecycle (%s).", c.A, c.B, fmtEst(d, "bytes", true), how))
		}
	}
	return append(out, appFindings(r)...)
}

// pairedFix is r's controlled verdict of a against b on the native heap,
// nil when the run has none.
func pairedFix(r *schema.Result, a, b string) *schema.Controlled {
	for i := range r.Controlled {
		c := &r.Controlled[i]
		if c.Model == a && c.Control == b && c.Signal == analysis.SignalNativeHeap {
			return c
		}
	}
	return nil
}

// fixPair reports whether a − b is the leaky release against the fixed one
// (spec.Leaky's and spec.Fixed's Release, 4.3.0 against 4.3.1) within one
// engine: the Go engine's models (leaky, fixed) or Kafka's own jars
// (kafka-4.3.0, kafka-4.3.1).
func fixPair(a, b string) bool {
	_, ja := spec.KafkaVersion(a)
	_, jb := spec.KafkaVersion(b)
	return ja == jb && spec.ModelRelease(a) == spec.Leaky.Release && spec.ModelRelease(b) == spec.Fixed.Release
}

// cacheBoundFinding is a model's finding when its verdict took a filling shared block cache out of the native
// heap (schema.CacheBound): the verdict on the rest, and how full the cache is.
func cacheBoundFinding(m string, run *schema.Run, b *schema.CacheBound, floor string) string {
	est := fmtEst(b.Outside, "bytes", true)
	cache := fmt.Sprintf("its shared block cache grows %s per lifecycle toward its capacity, which bounds it (%s of %s)",
		fmtEst(b.Growth, "bytes", true), units.FormatBytes(b.Usage), units.FormatBytes(b.Capacity))
	switch analysis.VerdictWord(run.Verdict.Leak) {
	case analysis.WordLeak:
		return fmt.Sprintf("%s leaks outside its shared block cache: native heap %s per lifecycle (95%% CI); %s.", engineLabel(m, run), est, cache)
	case analysis.WordNoLeak:
		return fmt.Sprintf("%s does not leak outside its shared block cache: native heap %s per lifecycle (95%% CI), below the %s floor, and RSS below its floor; %s.", engineLabel(m, run), est, floor, cache)
	}
	s := fmt.Sprintf("%s: inconclusive outside its shared block cache, native heap %s per lifecycle (95%% CI); %s", engineLabel(m, run), est, cache)
	if run.Verdict.Settle != "" {
		s += "; to settle it: " + run.Verdict.Settle
	}
	return s + "."
}
