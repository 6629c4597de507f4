package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

// TestSettleCommand: every way an inconclusive verdict is settled ends in a
// rocksleak command for the result's scenario and seed: a longer run, the
// fixed model against all-fixes, a repeat at the next seed; a settled
// verdict gets none.
func TestSettleCommand(t *testing.T) {
	r := &schema.Result{Runs: map[string]*schema.Run{"fixed": {Summary: schema.Summary{Lifecycles: 1525}}, "leaky": {Summary: schema.Summary{Lifecycles: 1525}}}}
	r.Scenario.Name, r.Scenario.Seed = "kafka-20616", 20616
	inc := func(settle string, more float64) stats.Decision {
		return stats.Decision{Settle: settle, MoreLifecycles: more}
	}
	assert.Equal(t, "run ~70 more lifecycles: rocksleak run --scenario kafka-20616 --models fixed --seed 20616 --lifecycles 1600",
		SettleCommand(r, "fixed", inc("run ~70 more lifecycles", 70)))
	assert.Equal(t, "run longer: rocksleak run --scenario kafka-20616 --models leaky --seed 20616 --lifecycles 3100",
		SettleCommand(r, "leaky", inc("run longer", 0)))
	d := stats.DecideSignals(stats.Fit{PerLifecycle: stats.Estimate{Value: 300, Low: 200, High: 400, SE: 50, DF: 200, Valid: true}, Samples: 500, SamplesUsed: 450, LifecyclesUsed: 900},
		stats.Fit{PerLifecycle: stats.Estimate{Value: 40000, Low: 30000, High: 50000, SE: 5000, DF: 200, Valid: true}, Samples: 500, SamplesUsed: 450, LifecyclesUsed: 900}, stats.DecideOptions{})
	assert.Contains(t, SettleCommand(r, "fixed", d), ": rocksleak run --scenario kafka-20616 --models fixed,all-fixes --seed 20616 --lifecycles 3000")
	assert.Equal(t, "", SettleCommand(r, "leaky", stats.Decision{Verdict: stats.VerdictLeak}))
}

// TestSettleCommandCarriesOverrides: a run made with --set overrides is
// settled by a command with the same overrides (another workload otherwise),
// in each form the flag package accepts.
func TestSettleCommandCarriesOverrides(t *testing.T) {
	r := &schema.Result{Runs: map[string]*schema.Run{"kafka-4.3.1": {Summary: schema.Summary{Lifecycles: 224}}}}
	r.Scenario.Name, r.Scenario.Seed = "kafka-20616", 20616
	r.Provenance.Command = "rocksleak run --models kafka-4.3.1 --lifecycles 200 --set records_per_step=2 -set=value_bytes=64 --out /tmp/x"
	assert.Equal(t, "run longer: rocksleak run --scenario kafka-20616 --models kafka-4.3.1 --seed 20616 --set records_per_step=2 --set value_bytes=64 --lifecycles 500",
		SettleCommand(r, "kafka-4.3.1", stats.Decision{Settle: "run longer"}))
	assert.Empty(t, carriedSets("rocksleak run --lifecycles 200"))
}

// TestControlOfIsTheModelWithEveryFix: the control a slope on its floor is
// judged against is found by its role (the model with every fix, for a
// model lacking exactly one), not by name; models without one get none.
func TestControlOfIsTheModelWithEveryFix(t *testing.T) {
	c, ok := ControlOf(spec.Fixed.Name)
	assert.True(t, ok)
	assert.Equal(t, spec.AllFixes.Name, c)
	for _, m := range []string{spec.Leaky.Name, spec.OptionsFix.Name, spec.FinallyFix.Name, spec.ReadOptionsFix.Name, spec.AllFixes.Name,
		"fixed+synthetic", "fixed@jemalloc", "kafka-4.3.1", "no-such-model"} {
		_, ok := ControlOf(m)
		assert.False(t, ok, m)
	}
}
