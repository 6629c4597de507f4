// Package gate decides whether a candidate run may replace a baseline run: it
// evaluates a policy of named checks (the canary gate of an upgrade) on two
// result.json files and says PASS, WARN or FAIL for each check and overall.
//
// A check compares one metric of the candidate's run with a limit:
//
//   - op "ratio": limit = max(baseline × factor, baseline + floor). The floor
//     is an absolute headroom in the metric's unit; without it a baseline
//     slope near zero would make "× 1.2" a limit no honest rerun can meet.
//   - op "max": limit = value.
//   - op "equal": the candidate must equal value (counts only).
//
// Metrics that are estimates (slopes, with a 95% interval) are judged on the
// candidate's interval: PASS when the estimate is ≤ limit; FAIL only when the
// interval's lower bound is > limit, i.e. there is evidence of a regression;
// otherwise WARN: the estimate is above the limit but the interval reaches
// below it, which is not evidence of a regression (WARN passes the gate; run
// longer to decide). The baseline enters as its point estimate. Exact metrics
// (counts, restore times) are compared directly: PASS or FAIL.
//
// Slopes are read from the Total fits (Y ~ 1 + Lifecycles: the whole growth
// per lifecycle at the run's failure rate, failed closes included), which is
// what the leak verdicts are decided on.
package gate

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocksleak/rocksleak/internal/strictyaml"
)

// ErrInvalidPolicy marks a policy file that cannot be used: malformed YAML,
// an unknown field, or a field with an invalid value. The message names the
// check and the field. The CLI exits 2 on it.
var ErrInvalidPolicy = errors.New("invalid policy")

// Limits enforced by Validate.
const (
	// MaxPolicyBytes is the largest policy file ParsePolicy accepts.
	MaxPolicyBytes = 1 << 20
	// MaxFactor is the largest ratio factor: beyond it a check checks nothing.
	MaxFactor = 1000
	// MaxMagnitude bounds floors and values (1 EB, 31 years in ns): beyond it
	// a number is a units mistake.
	MaxMagnitude = 1e18
)

// The check operators.
const (
	OpRatio = "ratio" // candidate ≤ max(baseline × factor, baseline + floor)
	OpMax   = "max"   // candidate ≤ value
	OpEqual = "equal" // candidate = value (exact metrics only)
)

// Policy is a list of named checks, all of which must pass.
type Policy struct {
	Checks []Check `yaml:"checks" json:"checks"`
}

// Check is one rule of a policy. Units are the metric's (see Metrics): bytes,
// nanoseconds or counts.
type Check struct {
	// Name identifies the check in the output; unique within a policy.
	Name string `yaml:"name" json:"name"`
	// Metric is what is compared; one of Metrics().
	Metric string `yaml:"metric" json:"metric"`
	// Op is "ratio", "max" or "equal".
	Op string `yaml:"op" json:"op"`
	// Factor (ratio only, > 0) multiplies the baseline.
	Factor float64 `yaml:"factor,omitempty" json:"factor,omitempty"`
	// Floor (ratio only, ≥ 0) is the least headroom above the baseline, in
	// the metric's unit.
	Floor float64 `yaml:"floor,omitempty" json:"floor,omitempty"`
	// Value (max and equal only; required there) is the fixed limit.
	Value *float64 `yaml:"value,omitempty" json:"value,omitempty"`
}

//go:embed default.yaml
var defaultPolicyYAML []byte

// DefaultPolicyYAML returns the embedded default policy file: the canary gate
// of the KAFKA-20616 upgrade (RSS growth per million records ≤ baseline ×
// 1.2, native growth per lifecycle ≤ baseline × 1.2, restore time p50 ≤
// baseline × 1.25, no task errors, no records lost, consumer lag ≤ 2 minutes
// where the subjects have lag), with its floors.
func DefaultPolicyYAML() []byte { return bytes.Clone(defaultPolicyYAML) }

// DefaultPolicy returns the parsed default policy.
func DefaultPolicy() Policy {
	p, err := ParsePolicy(defaultPolicyYAML)
	if err != nil {
		// The file is embedded at build time and tested.
		panic(fmt.Sprintf("gate: embedded default policy: %v", err))
	}
	return p
}

// LoadPolicy reads and parses a policy file. Errors wrap ErrInvalidPolicy and
// name the path.
func LoadPolicy(path string) (Policy, error) {
	b, err := strictyaml.ReadFile(path, MaxPolicyBytes)
	if err != nil {
		return Policy{}, fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
	}
	p, err := ParsePolicy(b)
	if err != nil {
		return Policy{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy decodes and validates one YAML policy document. Unknown fields,
// values of the wrong type, several documents, an empty document and every
// invalid value are errors wrapping ErrInvalidPolicy.
func ParsePolicy(data []byte) (Policy, error) {
	if len(data) > MaxPolicyBytes {
		return Policy{}, fmt.Errorf("%w: larger than %d bytes", ErrInvalidPolicy, MaxPolicyBytes)
	}
	var p Policy
	err := strictyaml.DecodeOne(data, &p, "policy", "gate.", map[string][]string{
		"gate.Check":  {"name", "metric", "op", "factor", "floor", "value"},
		"gate.Policy": {"checks"},
	})
	if err != nil {
		return Policy{}, fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
	}
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	return p, nil
}

// Validate reports every invalid field, each naming its check (by name, or by
// index when the name is missing) and field. The error wraps
// ErrInvalidPolicy.
func (p Policy) Validate() error {
	var errs []error
	if len(p.Checks) == 0 {
		errs = append(errs, errors.New("checks: at least one check is required"))
	}
	seen := map[string]int{}
	for i, c := range p.Checks {
		where := fmt.Sprintf("checks[%d]", i)
		if c.Name != "" {
			where = fmt.Sprintf("checks[%d] (%s)", i, c.Name)
		}
		bad := func(field, format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: %s: %s", where, field, fmt.Sprintf(format, args...)))
		}
		switch {
		case strings.TrimSpace(c.Name) == "":
			bad("name", "missing")
		default:
			if j, dup := seen[c.Name]; dup {
				bad("name", "%q duplicates checks[%d]", c.Name, j)
			} else {
				seen[c.Name] = i
			}
		}
		m, known := metrics[c.Metric]
		if !known {
			if c.Metric == "" {
				bad("metric", "missing (one of %s)", strings.Join(Metrics(), ", "))
			} else {
				bad("metric", "unknown metric %q (one of %s)", c.Metric, strings.Join(Metrics(), ", "))
			}
		}
		validateOp(c, m, known, bad)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidPolicy, errors.Join(errs...))
}

// validateOp checks c's op and the fields it takes (factor and floor for a
// ratio, value for max and equal), reporting each problem through bad; m is
// c's metric when known.
func validateOp(c Check, m metric, known bool, bad func(field, format string, args ...any)) {
	finite := func(field string, v float64) bool {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			bad(field, "%v is not a finite number", v)
			return false
		case math.Abs(v) > MaxMagnitude:
			bad(field, "%g is beyond ±%g: a units mistake?", v, float64(MaxMagnitude))
			return false
		}
		return true
	}
	switch c.Op {
	case OpRatio:
		if finite("factor", c.Factor) {
			switch {
			case c.Factor == 0:
				bad("factor", "missing or 0: a ratio check needs a factor > 0")
			case c.Factor < 0:
				bad("factor", "%v is negative: a ratio check needs a factor > 0", c.Factor)
			case c.Factor > MaxFactor:
				bad("factor", "%v is above %d", c.Factor, MaxFactor)
			}
		}
		if finite("floor", c.Floor) && c.Floor < 0 {
			bad("floor", "%v is negative: the floor is headroom above the baseline, ≥ 0", c.Floor)
		}
		if c.Value != nil {
			bad("value", "a ratio check takes factor and floor, not value")
		}
	case OpMax, OpEqual:
		if c.Value == nil {
			bad("value", "missing: a %s check needs a value", c.Op)
		} else {
			finite("value", *c.Value)
		}
		if c.Factor != 0 {
			bad("factor", "only a ratio check takes a factor")
		}
		if c.Floor != 0 {
			bad("floor", "only a ratio check takes a floor")
		}
		if c.Op == OpEqual && known && m.estimate {
			bad("op", "equal needs an exact metric (a count or a time); %s is an estimate with an interval: use max", c.Metric)
		}
	case "":
		bad("op", "missing (one of ratio, max, equal)")
	default:
		bad("op", "unknown op %q (one of ratio, max, equal)", c.Op)
	}
}

// Metrics returns the metric names a check may use, sorted.
func Metrics() []string {
	names := make([]string, 0, len(metrics))
	for n := range metrics {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
