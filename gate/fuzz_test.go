package gate

import (
	"encoding/json"
	"errors"
	"io"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzParsePolicy parses arbitrary bytes as a policy file. It must never
// panic; every error wraps ErrInvalidPolicy; what parses is valid, survives
// a YAML round trip, and evaluates and renders on a synthetic pair of
// results without panicking. The seed corpus is under
// testdata/fuzz/FuzzParsePolicy plus the default policy.
func FuzzParsePolicy(f *testing.F) {
	f.Add(DefaultPolicyYAML())
	base := resultOf(f, 1, fixedRun())
	cand := resultOf(f, 2, runOf("fixed", est(3_000, 1_000, 5_000), est(1e8, 9e7, 1.1e8)))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("ParsePolicy error does not wrap ErrInvalidPolicy: %v", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("a parsed policy does not validate: %v", err)
		}
		b, err := yaml.Marshal(p)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := ParsePolicy(b)
		if err != nil {
			t.Fatalf("the policy written back does not parse: %v\n%s", err, b)
		}
		if len(back.Checks) != len(p.Checks) {
			t.Fatalf("round trip changed the number of checks: %d → %d", len(p.Checks), len(back.Checks))
		}
		rep, err := Evaluate(p, base, cand, Options{})
		if err != nil {
			t.Fatalf("Evaluate of a valid policy: %v", err)
		}
		if len(rep.Checks)+len(rep.NotApplicable) != len(p.Checks) {
			t.Fatalf("%d checks evaluated and %d not applicable, %d in the policy", len(rep.Checks), len(rep.NotApplicable), len(p.Checks))
		}
		for _, f := range Formats() {
			render, _ := RendererFor(f)
			if err := render(io.Discard, rep); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Fatalf("json: %v", err)
		}
	})
}
