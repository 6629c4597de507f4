package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocksleak/rocksleak/gate"
	"github.com/rocksleak/rocksleak/schema"
)

// gateUsage is the manual of "rocksleak gate".
const gateUsage = `rocksleak gate --baseline BASE.json --candidate CAND.json [--policy FILE] [--model NAME]
               [--baseline-model NAME] [--candidate-model NAME] [--format text|json|markdown]
               [--allow-scenario-mismatch] [--allow-partial] [--print-policy]

Gates a candidate run (e.g. a new build's) against a baseline run (e.g. the
fixed model, Kafka 4.3.1) under a policy of named checks; the default policy is
the canary gate of the KAFKA-20616 upgrade (--print-policy prints it):

  rss_growth_per_million_records  ≤ max(baseline × 1.2,  baseline + 40 MiB)
  native_growth_per_lifecycle     ≤ max(baseline × 1.2,  baseline + 2 KiB)
  restore_time (p50)              ≤ max(baseline × 1.25, baseline + 20 ms)
  task_errors = 0, records_lost = 0

Slopes are the total growth fits (per lifecycle, failed closes included). An
estimate FAILs only when its 95% interval's lower bound exceeds the limit
(evidence of a regression), PASSes when its value is within the limit, and
WARNs, passing, when its value is above the limit but its interval reaches
below it.

The model compared is the first of the candidate's models that the baseline
also ran; --model names it for both sides, --baseline-model and
--candidate-model for one side each (so one result can gate leaky vs fixed;
the side not named compares the same model, or its only one).
Both results must have the same schema version and the same workload (the
scenario without models, seed and stop condition) and be complete.

Exit status: 0 pass (with or without warnings), 1 a check failed, 2 bad input
(unreadable result, invalid policy, different workloads or schema, a failed
or interrupted run).
`

type gateOptions struct {
	baseline, candidate         string
	policy                      string
	model, baseModel, candModel string
	format                      string
	allowMismatch, allowPartial bool
	printPolicy                 bool
}

// inputErr marks err as bad input (exit 2) without changing its message.
type inputErr struct{ err error }

func (e inputErr) Error() string   { return e.err.Error() }
func (e inputErr) Unwrap() []error { return []error{e.err, errUsage} }

func parseGateFlags(stderr io.Writer, args []string) (gateOptions, error) {
	var o gateOptions
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, gateUsage, "\nFlags:\n"); fs.PrintDefaults() }
	fs.StringVar(&o.baseline, "baseline", "", "baseline result.json (or its run directory)")
	fs.StringVar(&o.candidate, "candidate", "", "candidate result.json (or its run directory)")
	fs.StringVar(&o.policy, "policy", "", "policy YAML file (default: the embedded canary gate)")
	fs.StringVar(&o.model, "model", "", "model compared on both sides (default: the first in common)")
	fs.StringVar(&o.baseModel, "baseline-model", "", "model of the baseline (overrides --model)")
	fs.StringVar(&o.candModel, "candidate-model", "", "model of the candidate (overrides --model)")
	fs.StringVar(&o.format, "format", "text", "output format: "+strings.Join(gate.Formats(), ", "))
	fs.BoolVar(&o.allowMismatch, "allow-scenario-mismatch", false, "gate results of different workloads")
	fs.BoolVar(&o.allowPartial, "allow-partial", false, "gate results whose status is failed or interrupted")
	fs.BoolVar(&o.printPolicy, "print-policy", false, "print the policy in effect as YAML and exit")
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return o, usagef("gate: unexpected argument %q", fs.Arg(0))
	}
	if o.printPolicy {
		return o, nil
	}
	if o.baseline == "" {
		return o, usagef("gate: --baseline is required")
	}
	if o.candidate == "" {
		return o, usagef("gate: --candidate is required")
	}
	if o.baseModel == "" {
		o.baseModel = o.model
	}
	if o.candModel == "" {
		o.candModel = o.model
	}
	return o, nil
}

// gateCmd is "rocksleak gate": it prints the report and returns nil on PASS
// or WARN, errQuiet on FAIL (exit 1), and an error marked as bad input
// (exit 2) for unreadable or incomparable results and invalid policies.
func gateCmd(stdout, stderr io.Writer, args []string) error {
	o, err := parseGateFlags(stderr, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	render, err := gate.RendererFor(o.format)
	if err != nil {
		return usagef("--format: %v", err)
	}
	policy := gate.DefaultPolicy()
	if o.policy != "" {
		if policy, err = gate.LoadPolicy(o.policy); err != nil {
			return inputErr{err}
		}
	}
	if o.printPolicy {
		if o.policy == "" {
			_, err := stdout.Write(gate.DefaultPolicyYAML())
			return err
		}
		return encodeYAML(stdout, policy)
	}
	base, err := loadResultFile(o.baseline)
	if err != nil {
		return err
	}
	cand := base
	if resultFilePath(o.candidate) != resultFilePath(o.baseline) {
		if cand, err = loadResultFile(o.candidate); err != nil {
			return err
		}
	}
	rep, err := gate.Evaluate(policy, base, cand, gate.Options{
		BaselineModel: o.baseModel, CandidateModel: o.candModel,
		AllowScenarioMismatch: o.allowMismatch, AllowPartial: o.allowPartial})
	if err != nil {
		return inputErr{err}
	}
	rep.Baseline.Path, rep.Candidate.Path = resultFilePath(o.baseline), resultFilePath(o.candidate)
	if err := render(stdout, rep); err != nil {
		return err
	}
	if err := appendStepSummary(rep); err != nil {
		return err
	}
	if !rep.Passed() {
		return errQuiet
	}
	return nil
}

// resultFilePath accepts a result.json or the run directory holding it.
func resultFilePath(p string) string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return filepath.Join(p, "result.json")
	}
	return p
}

// loadResultFile reads a result file; its errors wrap schema.ErrBadResult (exit 2).
func loadResultFile(p string) (*schema.Result, error) {
	return schema.Read(resultFilePath(p))
}

func encodeYAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}
