// Package sweep tallies and renders a reliability sweep: a scenario run
// at many seeds (`rocksleak reliability`), its shards joined again (`rocksleak
// merge`). It counts each model's verdicts, keeps the per-seed slopes and
// standard errors for their spread across seeds, tallies the controlled
// verdicts and calibration errors, pairs --replicate runs with their first run
// (the A/A pairs), and writes reliability.json (schema.Reliability) with its
// tables. It is pure Go: it reads results (schema.Result, samples), never runs
// a model.
package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
)

// New returns the empty record of a sweep of count seeds from first over the
// scenario's models, with a tally per model.
func New(scenario string, models []string, first int64, count int, untilVerdict bool) *schema.Reliability {
	rep := &schema.Reliability{Scenario: scenario, FirstSeed: first, SeedCount: count, UntilVerdict: untilVerdict,
		Models: models, Tally: map[string]*schema.ReliabilityTally{}, Calib: map[string]*schema.CalibrationTally{},
		Controlled: map[string]*schema.ControlledTally{}}
	for _, m := range models {
		rep.Tally[m] = &schema.ReliabilityTally{}
	}
	return rep
}

// Shard is the K-th of N shares of a sweep's seeds (1 ≤ K ≤ N).
type Shard struct{ K, N int }

// ParseShard reads "K/N"; the empty string is the whole sweep (1/1). The
// error quotes s.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{1, 1}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return Shard{}, fmt.Errorf("%q is not K/N with 1 ≤ K ≤ N", s)
	}
	return Shard{k, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Seeds is the shard's share of the sweep first, first+1, ..., first+count-1:
// round robin, the seeds at sweep index i with i mod N = K-1, in order. Every
// seed falls in exactly one shard, shard sizes differ by at most one, and the
// partition depends only on (first, count, N), so any machine computes the
// same one.
func (s Shard) Seeds(first int64, count int) []int64 {
	var out []int64
	for i := s.K - 1; i < count; i += s.N {
		out = append(out, first+int64(i))
	}
	return out
}

// AddSeed tallies one seed's result (written to dir) into rep and returns the
// words that describe it on the seed's progress line.
func AddSeed(rep *schema.Reliability, seed int64, dir string, res *schema.Result) []string {
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
	TallyControlled(rep, res.Controlled)
	for _, c := range res.Calibration {
		ct := rep.Calib[c.Model]
		if ct == nil {
			ct = &schema.CalibrationTally{}
			rep.Calib[c.Model] = ct
		}
		ct.NativeErrors = append(ct.NativeErrors, c.NativeHeapError)
		ct.RSSErrors = append(ct.RSSErrors, c.RSSError)
		words = append(words, fmt.Sprintf("%s native %+.2f%% rss %+.2f%%", c.Model, 100*c.NativeHeapError, 100*c.RSSError))
	}
	return words
}

// TallyControlled counts controlled verdicts by "model vs control (signal)".
func TallyControlled(rep *schema.Reliability, cs []schema.Controlled) {
	for _, c := range cs {
		key := fmt.Sprintf("%s vs %s (%s)", c.Model, c.Control, analysis.Describe(c.Signal).Name)
		ct := rep.Controlled[key]
		if ct == nil {
			ct = &schema.ControlledTally{}
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

// runVerdictWord words a run's verdict; a run without one is inconclusive.
func runVerdictWord(v *schema.Verdict) string {
	if v == nil {
		return analysis.WordInconclusive
	}
	return analysis.VerdictWord(v.Leak)
}
