package rehearsal

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/gate"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
)

// restoreCheck finishes a restore-time check of candidate cand against the
// baselines (see Gate): a restart compared with restarts says so, and a value
// above a ratio check's limit that has no interval of its own
// (gate.NoNoiseModel) is judged by the spread of the baselines' own values
// of the same figure (judgeSpread).
func restoreCheck(res *gate.CheckResult, c gate.Check, kind restoreKind, cand *InstanceAnalysis, r *schema.Rehearsal, phase int, baselines []int) {
	if kind == restoreRestart {
		res.Reason = "restart time (no store restores in the phase): " + res.Reason
		if res.Baseline == nil && c.Op == gate.OpRatio {
			res.Reason += " (no baseline instance was restarted in this phase or before)"
		}
	}
	if !noNoiseModel(*res) {
		return
	}
	res.Reason = strings.TrimSuffix(res.Reason, gate.NoNoiseModel)
	if kind == restoreRestart {
		judgeSpread(res, float64(cand.RestartNs), baselineRestarts(r, phase, baselines), "restart", "restart times")
		return
	}
	_, p50s := baselineStoreRestores(r, phase, baselines)
	judgeSpread(res, res.Candidate.Value, p50s, "median restore time", "median restore times")
}

// restartLevel is the one-sided level of restartBound's prediction bound.
const restartLevel = 0.95

// restartBound is the one-sided 95% prediction bound for one more restart
// time, given the baselines' restart times ns: exp(m + t·s·√(1 + 1/k)),
// m and s the mean and SD of the k times' logarithms (restart times taken
// as log-normal: they spread by factors, not by fixed amounts), t the 95%
// quantile of Student-t with k − 1 df. ok is false with fewer than two
// times (no spread to judge by).
func restartBound(ns []int64) (bound float64, ok bool) {
	k := len(ns)
	if k < 2 {
		return 0, false
	}
	logs := make([]float64, k)
	for i, v := range ns {
		logs[i] = math.Log(float64(v))
	}
	m, sd := stat.MeanStdDev(logs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}.Quantile(restartLevel)
	return math.Exp(m + t*sd*math.Sqrt(1+1/float64(k))), true
}

// noNoiseModel says whether gate.EvaluateCheck warned on a value above the
// limit only because it had no interval (gate.NoNoiseModel).
func noNoiseModel(res gate.CheckResult) bool {
	return res.Outcome == gate.Warn && strings.HasSuffix(res.Reason, gate.NoNoiseModel)
}

// judgeSpread decides a restore-time ratio check whose candidate value
// (cand, ns: one restart, or one instance's median restore time) is above
// the policy's limit but has no interval of its own: the noise model is the
// spread of the baselines' own values of the same figure (base), one per
// instance. A restart of a few hundred milliseconds varies between instances
// of one version by more than the policy's factor (142 to 586 ms in one
// rehearsal here), so above the limit but within that spread (restartBound)
// one value cannot tell a slower version from a slow start: it warns. Above
// the bound it fails; with fewer than two baseline values, no spread to
// judge by, it warns. The reason says which. what and whats name the figure.
func judgeSpread(res *gate.CheckResult, cand float64, base []int64, what, whats string) {
	bound, ok := restartBound(base)
	switch {
	case !ok:
		res.Outcome = gate.Warn
		res.Reason += fmt.Sprintf("; but %d baseline %s gives no spread to judge one %s by (two or more baseline instances with one to gate on it)",
			len(base), what, what)
	case cand <= bound:
		res.Outcome = gate.Warn
		res.Reason += fmt.Sprintf("; but within the spread of the baselines' %d %s (%s one-sided prediction bound %s, log-normal): one %s cannot tell",
			len(base), whats, units.FormatPercent(restartLevel), fmtUnit(bound, gate.UnitNanoseconds), what)
	default:
		res.Outcome = gate.Fail
		res.Reason += fmt.Sprintf("; and above the baselines' %d %s' %s one-sided prediction bound %s (log-normal)",
			len(base), whats, units.FormatPercent(restartLevel), fmtUnit(bound, gate.UnitNanoseconds))
	}
}

// restoreKind says what a restore-time check compares.
type restoreKind int

const (
	restoreNone    restoreKind = iota
	restoreStores              // store restores during the window
	restoreRestart             // the restart at the phase's start
)

// candidateRestore is the candidate's restore figure and its kind (see
// Gate).
func candidateRestore(ia *InstanceAnalysis) (schema.RestoreStats, restoreKind) {
	switch {
	case ia.Summary.Restore.Count > 0:
		return ia.Summary.Restore, restoreStores
	case ia.RestartNs > 0:
		return restartAsRestore([]int64{ia.RestartNs}), restoreRestart
	}
	return schema.RestoreStats{}, restoreNone
}

// restartAsRestore records restart times as restores: count, median, max.
func restartAsRestore(ns []int64) schema.RestoreStats {
	if len(ns) == 0 {
		return schema.RestoreStats{}
	}
	s := slices.Clone(ns)
	slices.Sort(s)
	return schema.RestoreStats{Count: int64(len(s)), P50Ns: medianInt(s), MaxNs: s[len(s)-1]}
}

func medianInt(s []int64) int64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// baselineRestore is the baselines' restore figure of the given kind (see
// Gate): a zero RestoreStats when they have none.
func baselineRestore(r *schema.Rehearsal, phase int, bases []*InstanceAnalysis, kind restoreKind) schema.RestoreStats {
	ids := make([]int, len(bases))
	for i, b := range bases {
		ids[i] = b.Instance
	}
	switch kind {
	case restoreStores:
		out, _ := baselineStoreRestores(r, phase, ids)
		return out
	case restoreRestart:
		return restartAsRestore(baselineRestarts(r, phase, ids))
	}
	return schema.RestoreStats{}
}

// baselineStoreRestores pools the store restores of the instances ids in
// phase or, when none of them restored then, in the latest earlier phase in
// which they did: counts, records, durations and each restore's records
// added up, the worst maximum, and as median the median of the instances'
// medians (p50s, one per instance that restored, sorted).
func baselineStoreRestores(r *schema.Rehearsal, phase int, ids []int) (out schema.RestoreStats, p50s []int64) {
	for ph := phase; ph >= 0; ph-- {
		out, p50s = schema.RestoreStats{}, nil
		for _, ip := range r.Phases[ph].Instances {
			if !slices.Contains(ids, ip.Instance) || ip.Summary.Restore.Count == 0 {
				continue
			}
			rs := ip.Summary.Restore
			p50s = append(p50s, rs.P50Ns)
			out.Count += rs.Count
			out.MaxNs = max(out.MaxNs, rs.MaxNs)
			out.Records += rs.Records
			out.DurationsNs = append(out.DurationsNs, rs.DurationsNs...)
			out.RecordsEach = append(out.RecordsEach, rs.RecordsEach...)
		}
		if len(p50s) > 0 {
			if int64(len(out.DurationsNs)) != out.Count {
				out.DurationsNs = nil // an instance without them: no pooled sample
			}
			if len(out.RecordsEach) != len(out.DurationsNs) {
				out.RecordsEach = nil // an instance without them: speed from the totals only
			}
			slices.Sort(p50s)
			out.P50Ns = medianInt(p50s)
			return out, p50s
		}
	}
	return schema.RestoreStats{}, nil
}

// baselineRestarts is each of the instances ids' latest restart time, in
// phase or before (instances never restarted are left out).
func baselineRestarts(r *schema.Rehearsal, phase int, ids []int) []int64 {
	var latest []int64
	for _, id := range ids {
		for ph := phase; ph >= 0; ph-- {
			if ns := restartOf(r.Phases[ph], id); ns > 0 {
				latest = append(latest, ns)
				break
			}
		}
	}
	return latest
}

func restartOf(ph schema.Phase, id int) int64 {
	for _, ip := range ph.Instances {
		if ip.Instance == id {
			return ip.RestartNs
		}
	}
	return 0
}
