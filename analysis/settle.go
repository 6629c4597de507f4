package analysis

import (
	"fmt"
	"math"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// SettleCommand is what would settle an inconclusive decision d of model,
// as a user can act on it: d.Settle's sentence, then the rocksleak command
// that does it, for the scenario and seed of r. More lifecycles: the same
// run over the model's lifecycles plus d.MoreLifecycles, rounded up to a
// hundred. A slope on its floor, or RSS above its floor with a flat native
// heap: the fixed model judged against all-fixes (a controlled verdict,
// which finds leaks below any floor); another model, twice as long. A
// one-time level shift: the same run at the next seed. It returns "" for a
// settled decision.
func SettleCommand(r *schema.Result, model string, d stats.Decision) string {
	if d.Verdict != stats.VerdictInconclusive || d.Settle == "" {
		return d.Settle
	}
	var lifecycles int64
	if run := r.Runs[model]; run != nil {
		lifecycles = run.Lifecycles
	}
	base := fmt.Sprintf("rocksleak run --scenario %s --models %s --seed %d", r.Scenario.Name, model, r.Scenario.Seed)
	round := func(v float64) int64 { return int64(math.Ceil(v/100) * 100) }
	var cmd string
	switch {
	case d.Step():
		cmd = fmt.Sprintf("rocksleak run --scenario %s --models %s --seed %d", r.Scenario.Name, model, r.Scenario.Seed+1)
		if lifecycles > 0 {
			cmd += fmt.Sprintf(" --lifecycles %d", lifecycles)
		}
	case d.NeedsControl():
		if model == "fixed" {
			cmd = fmt.Sprintf("rocksleak run --scenario %s --models fixed,all-fixes --seed %d --lifecycles %d", r.Scenario.Name, r.Scenario.Seed, max(round(float64(lifecycles)), 3000))
		} else if lifecycles > 0 {
			cmd = fmt.Sprintf("%s --lifecycles %d", base, round(2*float64(lifecycles)))
		}
	case d.MoreLifecycles > 0 && !math.IsInf(d.MoreLifecycles, 1) && lifecycles > 0:
		cmd = fmt.Sprintf("%s --lifecycles %d", base, round(float64(lifecycles)+d.MoreLifecycles))
	case lifecycles > 0:
		cmd = fmt.Sprintf("%s --lifecycles %d", base, round(2*float64(lifecycles)))
	}
	if cmd == "" {
		return d.Settle
	}
	return d.Settle + ": " + cmd
}
