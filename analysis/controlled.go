package analysis

import (
	"strings"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

// ControlPair is a model and a control in the same run that differ by one
// thing: the control has exactly one fix more (the model lacks it; Go engine
// models only), the model is the control with the synthetic leak added
// (either engine: "kafka-4.3.1+synthetic" against "kafka-4.3.1"), or, in the
// JVM engine, the control is the next newer Kafka version in the run
// ("kafka-4.3.0" against "kafka-4.3.1": what the upgrade changes) or the
// same version with RocksJava's read-options fix ("kafka-4.3.1" against
// "kafka-4.3.1+read-options-fix"). Both run under the same allocator.
type ControlPair struct {
	Model, Control string
	Differs        string // "<fix> missing", "synthetic leak" or "<version>'s changes missing"
}

// ControlPairs lists the control pairs among models (run names), in run
// order of the model.
func ControlPairs(models []string) []ControlPair {
	type parsed struct {
		name string
		rn   spec.RunName
		m    spec.Model
	}
	var ps []parsed
	for _, name := range models {
		rn, err := spec.ParseRunName(name, spec.ModelNames())
		if err != nil {
			continue
		}
		var m spec.Model
		if !rn.JVM() {
			if m, err = spec.ParseModel(rn.Model); err != nil {
				continue
			}
		}
		ps = append(ps, parsed{name, rn, m})
	}
	// nextVersion is the Kafka version among ps that comes next after rn's,
	// under rn's allocator and synthetic leak ("" when rn's is the newest).
	nextVersion := func(ps []parsed, rn spec.RunName) string {
		next := ""
		for _, p := range ps {
			if p.rn.JVM() && p.rn.Allocator == rn.Allocator && p.rn.Synthetic == rn.Synthetic &&
				p.rn.ReadOptionsFix == rn.ReadOptionsFix &&
				spec.CompareKafkaVersions(p.rn.KafkaVersion, rn.KafkaVersion) > 0 &&
				(next == "" || spec.CompareKafkaVersions(p.rn.KafkaVersion, next) < 0) {
				next = p.rn.KafkaVersion
			}
		}
		return next
	}
	var out []ControlPair
	for _, a := range ps {
		for _, b := range ps {
			if a.name == b.name || a.rn.Allocator != b.rn.Allocator {
				continue
			}
			switch {
			case a.rn.Synthetic && !b.rn.Synthetic && a.rn.Model == b.rn.Model && a.rn.ReadOptionsFix == b.rn.ReadOptionsFix:
				out = append(out, ControlPair{a.name, b.name, "synthetic leak"})
			case a.rn.Synthetic == b.rn.Synthetic && a.rn.JVM() && b.rn.JVM() && a.rn.Model == b.rn.Model:
				if !a.rn.ReadOptionsFix && b.rn.ReadOptionsFix {
					out = append(out, ControlPair{a.name, b.name, "read-options fix missing"})
				}
			case a.rn.Synthetic == b.rn.Synthetic && a.rn.JVM() && b.rn.JVM() && a.rn.ReadOptionsFix == b.rn.ReadOptionsFix:
				if next := nextVersion(ps, a.rn); next == b.rn.KafkaVersion {
					out = append(out, ControlPair{a.name, b.name, next + "'s changes missing"})
				}
			case a.rn.Synthetic == b.rn.Synthetic && !a.rn.JVM() && !b.rn.JVM():
				// b = a plus exactly one fix.
				var extra []string
				sub := true
				for _, f := range spec.Fixes() {
					switch {
					case a.m.Has(f) && !b.m.Has(f):
						sub = false
					case b.m.Has(f) && !a.m.Has(f):
						extra = append(extra, f.String())
					}
				}
				if sub && len(extra) == 1 {
					out = append(out, ControlPair{a.name, b.name, extra[0] + " fix missing"})
				}
			}
		}
	}
	return out
}

// Controlled judges every model of r against each of its controls (see
// ControlPairs), on the native heap and RSS, with margin 0: a one-sided test
// that the model grows faster than its control, which finds a leak of any
// size given enough lifecycles, below any absolute floor. The paired verdict
// runs at stats.PairedConfidence (99%, 0.5% a side), the fits' difference at
// CompareFits' 95%.
//
// With both runs' samples (samples, by run name) the estimate is the paired
// difference (PairedTimerInput, stats.ComparePairedCovariate): the slope of
// model − control sampled at the same lifecycle counts, so what both runs
// share cancels (the two are the same scenario and seed, run one after the
// other), less its fitted share of the difference of the two runs' RocksDB
// timer backlogs (TimerBacklog), which follows each run's wall-clock pace,
// not its lifecycles; without
// them, or when fewer than 3 lifecycle counts are shared, the difference of
// the two lifecycle-only fits (stats.CompareFits). The Reason says which.
func Controlled(r *schema.Result, samples map[string][]schema.Sample) []schema.Controlled {
	var out []schema.Controlled
	for _, p := range ControlPairs(r.Models) {
		rm, rc := r.Runs[p.Model], r.Runs[p.Control]
		if rm == nil || rc == nil || rm.Fits == nil || rc.Fits == nil {
			continue
		}
		for _, sig := range []string{SignalNativeHeap, SignalRSS} {
			fm, fc := rm.Fits[sig].Total, rc.Fits[sig].Total
			if fm == nil || fc == nil {
				continue
			}
			c, lifecycles := comparePair(samples[p.Model], samples[p.Control], sig, *fm, *fc)
			if lifecycles == 0 {
				lifecycles = min(rm.Lifecycles, rc.Lifecycles)
			}
			out = append(out, schema.Controlled{Model: p.Model, Control: p.Control, Differs: p.Differs,
				Signal: sig, Difference: c.Estimate, Confidence: c.Confidence, Verdict: c.Verdict.String(),
				Reason:   Describe(sig).Name + ": " + strings.TrimSpace(c.Reason),
				Withheld: c.Withheld, Lifecycles: lifecycles})
		}
	}
	return out
}

// pairedMethod names the paired verdict's method in its Reason.
const pairedMethod = "paired difference series less its fitted share of RocksDB's timer backlog (slopes between batch means)"

// comparePair is the controlled verdict of one pair on one signal: paired
// when the samples allow it (with the last shared lifecycle count), else the
// difference of the two fits (lifecycles 0).
func comparePair(model, control []schema.Sample, sig string, fm, fc schema.SignalFit) (stats.Comparison, int64) {
	if in, cov, ok := PairedTimerInput(model, control, sig); ok {
		if c, _, err := stats.ComparePairedCovariate(in, cov, Options(), stats.CompareOptions{}); err == nil {
			c.Reason = pairedMethod + ", " + c.Reason
			return c, int64(in.Lifecycles[len(in.Lifecycles)-1])
		}
	}
	c := stats.CompareFits(statsFit(fm), statsFit(fc), stats.CompareOptions{})
	c.Reason = "difference of the two fits, " + c.Reason
	return c, 0
}

// PairedInput is the series model − control of signal sig at every lifecycle
// count both runs sampled (the first non-timer sample at each count), in
// lifecycle order, as a lifecycle-only stats.Input. ok is false when fewer
// than 3 counts are shared.
func PairedInput(model, control []schema.Sample, sig string) (stats.Input, bool) {
	first := func(ss []schema.Sample) map[int64]float64 {
		m := map[int64]float64{}
		for _, s := range ss {
			if s.Trigger == schema.TriggerTimer {
				continue
			}
			if _, seen := m[s.Lifecycles]; !seen {
				m[s.Lifecycles] = SignalValue(s, sig)
			}
		}
		return m
	}
	mc := first(control)
	in := stats.Input{Unit: Describe(sig).statsUnit}
	seen := map[int64]bool{}
	for _, s := range model {
		if s.Trigger == schema.TriggerTimer || seen[s.Lifecycles] {
			continue
		}
		seen[s.Lifecycles] = true
		c, ok := mc[s.Lifecycles]
		if !ok {
			continue
		}
		in.Lifecycles = append(in.Lifecycles, float64(s.Lifecycles))
		in.Y = append(in.Y, SignalValue(s, sig)-c)
	}
	return in, len(in.Y) >= 3
}

// CompareSignal is stats.CompareFits on two lifecycle-only fits: model −
// control per lifecycle, with its interval and controlled verdict.
func CompareSignal(model, control schema.SignalFit, opt stats.CompareOptions) stats.Comparison {
	return stats.CompareFits(statsFit(model), statsFit(control), opt)
}

// CompareReplicate is the A/A pair of the controlled verdict: a second run of
// model (replicate) judged against its first run (first), same scenario and
// seed, by the paired difference series on the native heap and RSS, as
// Controlled judges a model against its control. Every "leak" it returns is
// a false call. Model is "<model> (replicate)"; Differs is "nothing (A/A)".
func CompareReplicate(model string, replicate, first []schema.Sample) []schema.Controlled {
	var out []schema.Controlled
	for _, sig := range []string{SignalNativeHeap, SignalRSS} {
		in, cov, ok := PairedTimerInput(replicate, first, sig)
		if !ok {
			continue
		}
		c := schema.Controlled{Model: model + " (replicate)", Control: model, Differs: "nothing (A/A)", Signal: sig,
			Lifecycles: int64(in.Lifecycles[len(in.Lifecycles)-1])}
		cmp, _, err := stats.ComparePairedCovariate(in, cov, Options(), stats.CompareOptions{})
		if err != nil {
			c.Verdict, c.Reason = stats.VerdictInconclusive.String(), Describe(sig).Name+": "+err.Error()
		} else {
			c.Difference, c.Confidence, c.Verdict, c.Withheld = cmp.Estimate, cmp.Confidence, cmp.Verdict.String(), cmp.Withheld
			c.Reason = Describe(sig).Name + ": " + pairedMethod + ", " + strings.TrimSpace(cmp.Reason)
		}
		out = append(out, c)
	}
	return out
}

// BatchMeans is stats.BatchMeansSlope (DefaultBatches, 95%) of signal sig of
// one model's samples on lifecycles alone, over the non-timer samples after
// the first warmup of them (a fit's WarmupSamples): the per-lifecycle growth
// with a batch-means interval, for comparing interval methods on real runs.
func BatchMeans(samples []schema.Sample, sig string, warmup int) stats.Estimate {
	var in stats.Input
	for _, s := range samples {
		if s.Trigger == schema.TriggerTimer {
			continue
		}
		in.Lifecycles = append(in.Lifecycles, float64(s.Lifecycles))
		in.Y = append(in.Y, SignalValue(s, sig))
	}
	if warmup < 0 || warmup > len(in.Y) {
		return stats.Estimate{}
	}
	in.Y, in.Lifecycles = in.Y[warmup:], in.Lifecycles[warmup:]
	return stats.BatchMeansSlope(in, stats.DefaultBatches, 0.95)
}
