package gate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

// ErrIncomparable marks two results that cannot be gated against each other:
// different schema versions, different workloads, a run that did not
// complete, or a model that is not in the result. The CLI exits 2 on it.
var ErrIncomparable = errors.New("results cannot be compared")

// Outcome is a check's or the gate's outcome.
type Outcome string

// The outcomes. WARN passes the gate. NotApplicable is a check whose
// metric the compared subjects cannot have (consumer lag of a result.json's
// run): it takes no part in the decision.
const (
	Pass          Outcome = "PASS"
	Warn          Outcome = "WARN"
	Fail          Outcome = "FAIL"
	NotApplicable Outcome = "N/A"
)

// Rule states how a check's outcome is decided; reports print it.
const Rule = "ratio limit = max(baseline × factor, baseline + floor), a baseline below 0 counted as 0; an estimate FAILs only when its 95% " +
	"interval's lower bound exceeds the limit (evidence of a regression), PASSes when its value is within the " +
	"limit, and WARNs (passing) when its value is above the limit but its interval reaches below it; a ratio check on a " +
	"value without an interval WARNs above its limit (no noise model to tell noise from change); counts of events and " +
	"absolute limits (equal, max) FAIL on the value"

// NoNoiseModel ends the reason of a ratio check that warned because its
// value, above the limit, has no interval to tell noise from change.
const NoNoiseModel = "; one value without an interval cannot tell noise from change: not evidence of a regression"

// Options selects what is compared and what is tolerated.
type Options struct {
	// BaselineModel and CandidateModel name the model compared on each side.
	// When both are empty, the first of the candidate's models that the
	// baseline also ran is compared on both sides. When one is empty, that
	// side compares the same model as the other if it ran it, else its only
	// model.
	BaselineModel, CandidateModel string
	// AllowScenarioMismatch gates results of different workloads (a warning
	// is reported instead of ErrIncomparable).
	AllowScenarioMismatch bool
	// AllowPartial gates results whose status is failed or interrupted.
	AllowPartial bool
}

// Side describes one of the two runs compared.
type Side struct {
	Path           string         `json:"path,omitempty"` // set by the caller
	Model          string         `json:"model"`
	Scenario       string         `json:"scenario"`
	ScenarioDigest string         `json:"scenario_digest"` // as recorded in the result's provenance
	WorkloadDigest string         `json:"workload_digest"` // see scenarios.WorkloadDigest
	Seed           int64          `json:"seed"`
	Status         string         `json:"status"`
	Lifecycles     int64          `json:"lifecycles"`
	GitCommit      string         `json:"git_commit"`
	Host           string         `json:"host"`
	Allocator      spec.Allocator `json:"allocator"` // the compared run's C allocator
	RocksDBVersion string         `json:"rocksdb_version"`
}

// CheckResult is one check's evaluation. Baseline is nil for max and equal
// checks. Numbers are in Unit.
type CheckResult struct {
	Name      string    `json:"name"`
	Metric    string    `json:"metric"`
	Op        string    `json:"op"`
	Unit      string    `json:"unit"`
	Factor    float64   `json:"factor,omitempty"`
	Floor     float64   `json:"floor,omitempty"`
	Baseline  *Quantity `json:"baseline"`
	Candidate *Quantity `json:"candidate"` // nil when it could not be read
	Limit     float64   `json:"limit"`
	Outcome   Outcome   `json:"outcome"`
	Reason    string    `json:"reason"`
}

// Report is the gate's decision. Outcome is FAIL if any check failed, else
// WARN if any warned, else PASS.
type Report struct {
	Baseline  Side          `json:"baseline"`
	Candidate Side          `json:"candidate"`
	Rule      string        `json:"rule"`
	Checks    []CheckResult `json:"checks"`
	// NotApplicable are the policy's checks whose metric the runs cannot
	// have (consumer lag: a run reads no stream), with the reason; they take
	// no part in the decision and are not among Checks.
	NotApplicable []CheckResult `json:"not_applicable,omitempty"`
	Outcome       Outcome       `json:"outcome"`
	Warnings      []string      `json:"warnings"`
	// Controlled is the candidate judged against the baseline on the
	// difference of their native-heap slopes; a "leak" fails the gate.
	Controlled *Controlled `json:"controlled,omitempty"`
}

// Passed reports whether the gate passed (PASS or WARN).
func (r *Report) Passed() bool { return r.Outcome != Fail }

// SelectModels returns the models compared on each side (see Options).
func SelectModels(base, cand *schema.Result, opt Options) (string, string, error) {
	bm, cm := opt.BaselineModel, opt.CandidateModel
	switch {
	case bm == "" && cm == "":
		for _, m := range cand.Models {
			if slices.Contains(base.Models, m) {
				bm, cm = m, m
				break
			}
		}
		if bm == "" {
			return "", "", fmt.Errorf("%w: no model in common (baseline ran %s, candidate ran %s): "+
				"name them with --baseline-model and --candidate-model", ErrIncomparable,
				listOrNone(base.Models), listOrNone(cand.Models))
		}
	case bm == "":
		bm = counterpart(cm, base)
	case cm == "":
		cm = counterpart(bm, cand)
	}
	for _, s := range []struct {
		side, model string
		r           *schema.Result
	}{{"baseline", bm, base}, {"candidate", cm, cand}} {
		if _, ok := s.r.Runs[s.model]; !ok || !slices.Contains(s.r.Models, s.model) {
			return "", "", fmt.Errorf("%w: the %s has no model %q (it ran %s)", ErrIncomparable, s.side, s.model,
				listOrNone(s.r.Models))
		}
	}
	return bm, cm, nil
}

// counterpart is the model of r to compare with model of the other side: the
// same model if r ran it, else r's only model, else model (reported missing).
func counterpart(model string, r *schema.Result) string {
	if !slices.Contains(r.Models, model) && len(r.Models) == 1 {
		return r.Models[0]
	}
	return model
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func listOrNone(ms []string) string {
	if len(ms) == 0 {
		return "none"
	}
	return strings.Join(ms, ",")
}

// Evaluate gates cand against base under p. It returns an error wrapping
// ErrInvalidPolicy for an invalid policy and ErrIncomparable when the
// results cannot be compared (see Options); otherwise a Report, whose
// Outcome is the decision.
func Evaluate(p Policy, base, cand *schema.Result, opt Options) (*Report, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if base == nil || cand == nil {
		return nil, fmt.Errorf("%w: missing result", ErrIncomparable)
	}
	if base.SchemaVersion != cand.SchemaVersion {
		return nil, fmt.Errorf("%w: schema_version differs: baseline %d, candidate %d", ErrIncomparable,
			base.SchemaVersion, cand.SchemaVersion)
	}
	bm, cm, err := SelectModels(base, cand, opt)
	if err != nil {
		return nil, err
	}
	rep := &Report{Baseline: side(base, bm), Candidate: side(cand, cm), Rule: Rule, Warnings: []string{}}
	for _, s := range []struct {
		name string
		r    *schema.Result
	}{{"baseline", base}, {"candidate", cand}} {
		if s.r.Status == schema.StatusComplete {
			continue
		}
		msg := fmt.Sprintf("the %s's status is %s (%s)", s.name, s.r.Status, strings.Join(s.r.Errors, "; "))
		if !opt.AllowPartial {
			return nil, fmt.Errorf("%w: %s; --allow-partial gates it anyway", ErrIncomparable, msg)
		}
		rep.Warnings = append(rep.Warnings, msg)
	}
	if rep.Baseline.WorkloadDigest != rep.Candidate.WorkloadDigest {
		diff := scenarios.WorkloadDiff(base.Scenario, cand.Scenario)
		msg := fmt.Sprintf("different workloads: baseline scenario %s (workload digest %.12s), candidate %s (%.12s); differing fields: %s",
			base.Scenario.Name, rep.Baseline.WorkloadDigest, cand.Scenario.Name, rep.Candidate.WorkloadDigest,
			strings.Join(diff, ", "))
		if !opt.AllowScenarioMismatch {
			return nil, fmt.Errorf("%w: %s; --allow-scenario-mismatch gates them anyway", ErrIncomparable, msg)
		}
		rep.Warnings = append(rep.Warnings, msg)
	}
	if base == cand && bm == cm {
		rep.Warnings = append(rep.Warnings, "the baseline and the candidate are the same run of the same model")
	}
	if b, c := rep.Baseline, rep.Candidate; b.Allocator != c.Allocator || b.RocksDBVersion != c.RocksDBVersion {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the runs differ in allocator or RocksDB (baseline: %s, RocksDB %s; "+
			"candidate: %s, RocksDB %s): a difference may come from them, not the code", orUnknown(string(b.Allocator)),
			orUnknown(b.RocksDBVersion), orUnknown(string(c.Allocator)), orUnknown(c.RocksDBVersion)))
	}
	if bl, cl := rep.Baseline.Lifecycles, rep.Candidate.Lifecycles; bl > 0 && cl > 0 && (bl > 2*cl || cl > 2*bl) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf(
			"the runs differ in length (baseline %d lifecycles, candidate %d): slopes compare, their intervals differ in width", bl, cl))
	}
	br, cr := base.Runs[bm], cand.Runs[cm]
	rep.Outcome = Pass
	for _, c := range p.Checks {
		res := EvaluateCheck(c, RunSubject(br), RunSubject(cr))
		if res.Outcome == NotApplicable {
			rep.NotApplicable = append(rep.NotApplicable, res)
			continue
		}
		rep.Checks = append(rep.Checks, res)
		switch {
		case res.Outcome == Fail:
			rep.Outcome = Fail
		case res.Outcome == Warn && rep.Outcome == Pass:
			rep.Outcome = Warn
		}
	}
	if rep.Controlled = controlled(br, cr, base == cand, controlledMargin(rep.Checks)); rep.Controlled != nil && rep.Controlled.Verdict == stats.VerdictLeak.String() {
		rep.Outcome = Fail
	}
	return rep, nil
}

func side(r *schema.Result, model string) Side {
	s := Side{Model: model, Scenario: r.Scenario.Name, ScenarioDigest: r.Provenance.ScenarioDigest,
		WorkloadDigest: scenarios.WorkloadDigest(r.Scenario), Seed: r.Provenance.Seed, Status: r.Status,
		GitCommit: r.Provenance.GitCommit}
	if run := r.Runs[model]; run != nil {
		s.Lifecycles, s.Allocator = run.Lifecycles, run.Allocator
	}
	if s.Allocator == "" {
		s.Allocator = r.Provenance.Allocator
	}
	s.Host, s.RocksDBVersion = r.Provenance.Host, r.Provenance.RocksDBVersion
	return s
}

// EvaluateCheck applies one check (valid by Policy.Validate) to a candidate
// against a baseline (used by ratio checks only): PASS, WARN or FAIL as Rule
// states, WARN when the candidate (or, for a ratio, the baseline) did not
// measure the metric, and NotApplicable when the metric is not one the
// subjects can have. Evaluate applies it to two runs; an upgrade
// rehearsal's gate applies it to fleet instances.
func EvaluateCheck(c Check, base, cand Subject) CheckResult {
	m := metrics[c.Metric]
	res := CheckResult{Name: c.Name, Metric: c.Metric, Op: c.Op, Unit: m.unit, Factor: c.Factor, Floor: c.Floor}
	failf := func(format string, args ...any) CheckResult {
		res.Outcome, res.Reason = Fail, fmt.Sprintf(format, args...)
		return res
	}
	warnf := func(format string, args ...any) CheckResult {
		res.Outcome, res.Reason = Warn, fmt.Sprintf(format, args...)
		return res
	}
	if cand.Run == nil || (c.Op == OpRatio && base.Run == nil) {
		return failf("cannot evaluate: no run to read on one side")
	}
	notApplicable := func(err error) CheckResult {
		res.Outcome, res.Reason = NotApplicable, err.Error()
		return res
	}
	cq, err := m.read(cand)
	if errors.Is(err, errNotApplicable) {
		return notApplicable(err)
	}
	if errors.Is(err, errNoData) {
		return warnf("nothing to check: the candidate %v", err)
	}
	if err != nil {
		return failf("cannot evaluate the candidate: %v", err)
	}
	res.Candidate = &cq
	basis, unpaired := "", ""
	switch c.Op {
	case OpRatio:
		bq, err := m.read(base)
		if errors.Is(err, errNotApplicable) {
			return notApplicable(fmt.Errorf("the baseline: %w", err))
		}
		if errors.Is(err, errNoData) {
			return warnf("no limit: the baseline %v (candidate %s)", err, fmtQty(cq.Value, m.unit))
		}
		if err != nil {
			return failf("cannot set a limit from the baseline: %v", err)
		}
		if m.paired != nil {
			bq, cq, basis, unpaired = pairSides(m, base, cand, bq, cq)
			res.Candidate = &cq
		}
		res.Baseline = &bq
		res.Limit = ratioLimit(bq.Value, c)
	case OpMax:
		res.Limit = *c.Value
	case OpEqual:
		res.Limit = *c.Value
		if cq.Value == *c.Value {
			res.Outcome, res.Reason = Pass, fmt.Sprintf("%s = %s", fmtQty(cq.Value, m.unit), fmtQty(*c.Value, m.unit))
		} else {
			res.Outcome, res.Reason = Fail, fmt.Sprintf("%s ≠ %s", fmtQty(cq.Value, m.unit), fmtQty(*c.Value, m.unit))
		}
		return res
	}
	if math.IsNaN(res.Limit) || math.IsInf(res.Limit, 0) {
		lim := res.Limit
		res.Limit = 0 // JSON has no infinities
		return failf("the limit is not a finite number (%v)", lim)
	}
	judge(&res, c, m, cq)
	if strings.HasSuffix(res.Reason, NoNoiseModel) {
		// NoNoiseModel stays last: a rehearsal judges such a check against its baselines' spread.
		res.Reason = strings.TrimSuffix(res.Reason, NoNoiseModel) + basis + unpaired + NoNoiseModel
	} else {
		res.Reason += basis
	}
	return res
}

// judge decides a ratio or max check whose limit is set (see Rule): PASS
// within the limit; above it FAIL when the candidate's interval lies above
// it, or on the value for a count of events or an absolute limit; WARN when
// the interval reaches below it, or when a ratio check's value has no
// interval (NoNoiseModel).
func judge(res *CheckResult, c Check, m metric, cq Quantity) {
	limit := limitDesc(c, *res, m.unit)
	switch {
	case cq.Value <= res.Limit:
		res.Outcome = Pass
		res.Reason = fmt.Sprintf("%s ≤ limit %s", fmtQty(cq.Value, m.unit), limit)
	case !cq.Interval && (m.events || c.Op != OpRatio):
		res.Outcome = Fail
		res.Reason = fmt.Sprintf("%s > limit %s", fmtQty(cq.Value, m.unit), limit)
	case !cq.Interval:
		res.Outcome = Warn
		res.Reason = fmt.Sprintf("%s > limit %s%s", fmtQty(cq.Value, m.unit), limit, NoNoiseModel)
	case cq.Low > res.Limit:
		res.Outcome = Fail
		res.Reason = fmt.Sprintf("95%% interval [%s, %s] lies above limit %s: a regression",
			fmtNum(cq.Low, m.unit), fmtNum(cq.High, m.unit), limit)
	default:
		res.Outcome = Warn
		res.Reason = fmt.Sprintf("%s > limit %s, but the 95%% interval reaches down to %s: not evidence of a regression; run longer to decide",
			fmtQty(cq.Value, m.unit), limit, fmtNum(cq.Low, m.unit))
	}
}

// ratioLimit is a ratio check's limit: max(b × factor, b + floor) with b the
// baseline's value, or 0 when that is negative. A baseline that shrinks (a
// slope below 0, usually noise around a flat series) sets no tighter limit
// than one that holds: without the clamp a baseline of −50 KiB/lifecycle
// would fail a flat candidate.
func ratioLimit(baseline float64, c Check) float64 {
	b := math.Max(baseline, 0)
	return math.Max(b*c.Factor, b+c.Floor)
}

// limitDesc says where a limit came from.
func limitDesc(c Check, res CheckResult, unit string) string {
	if c.Op != OpRatio {
		return fmtQty(res.Limit, unit)
	}
	if b := math.Max(res.Baseline.Value, 0); b*c.Factor >= b+c.Floor {
		return fmt.Sprintf("%s (baseline × %g)", fmtQty(res.Limit, unit), c.Factor)
	}
	return fmt.Sprintf("%s (baseline + floor %s)", fmtQty(res.Limit, unit), fmtNum(c.Floor, unit))
}
