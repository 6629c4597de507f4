package analysis

import (
	"strings"

	"github.com/rocksleak/rocksleak/measure/stats"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// ControlPair is a model and a control in the same run that differ by one
// thing: the control has exactly one fix more (the model lacks it), or the
// model is the control with the synthetic leak added. Both run under the
// same allocator.
type ControlPair struct {
	Model, Control string
	Differs        string // "<fix> missing" or "synthetic leak"
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
		m, err := spec.ParseModel(rn.Model)
		if err != nil {
			continue
		}
		ps = append(ps, parsed{name, rn, m})
	}
	var out []ControlPair
	for _, a := range ps {
		for _, b := range ps {
			if a.name == b.name || a.rn.Allocator != b.rn.Allocator {
				continue
			}
			switch {
			case a.rn.Synthetic && !b.rn.Synthetic && a.rn.Model == b.rn.Model:
				out = append(out, ControlPair{a.name, b.name, "synthetic leak"})
			case a.rn.Synthetic == b.rn.Synthetic:
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
// ControlPairs), on the native heap and RSS lifecycle-only fits, by
// stats.CompareFits at 95% with margin 0: a one-sided test that the model
// grows faster than its control, which finds a leak of any size given
// enough lifecycles, below any absolute floor.
func Controlled(r *schema.Result) []schema.Controlled {
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
			c := stats.CompareFits(statsFit(*fm), statsFit(*fc), stats.CompareOptions{})
			out = append(out, schema.Controlled{Model: p.Model, Control: p.Control, Differs: p.Differs,
				Signal: sig, Difference: c.Estimate, Verdict: c.Verdict.String(),
				Reason:     Describe(sig).Name + ": " + strings.TrimSpace(c.Reason),
				Lifecycles: min(rm.Lifecycles, rc.Lifecycles)})
		}
	}
	return out
}

// CompareSignal is stats.CompareFits on two lifecycle-only fits: model −
// control per lifecycle, with its interval and controlled verdict.
func CompareSignal(model, control schema.SignalFit, opt stats.CompareOptions) stats.Comparison {
	return stats.CompareFits(statsFit(model), statsFit(control), opt)
}
