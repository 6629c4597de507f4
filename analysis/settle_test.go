package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
// judged against is found by its role (the same run with every fix, for a
// run lacking exactly one), not by name, under the run's allocator; runs
// without one get none.
func TestControlOfIsTheModelWithEveryFix(t *testing.T) {
	for model, want := range map[string]string{
		spec.Fixed.Name:        spec.AllFixes.Name,
		"fixed@jemalloc":       "all-fixes@jemalloc",
		"kafka-4.3.1":          "kafka-4.3.1+read-options-fix",
		"kafka-4.3.0@jemalloc": "kafka-4.3.0+read-options-fix@jemalloc",
	} {
		c, ok := ControlOf(model)
		assert.True(t, ok, model)
		assert.Equal(t, want, c, model)
	}
	for _, m := range []string{spec.Leaky.Name, spec.OptionsFix.Name, spec.FinallyFix.Name, spec.ReadOptionsFix.Name, spec.AllFixes.Name,
		"fixed+synthetic", "kafka-4.3.1+read-options-fix", "kafka-4.3.1+synthetic", "no-such-model"} {
		_, ok := ControlOf(m)
		assert.False(t, ok, m)
	}
}

// TestSettleCommandNamesTheControlOfAJVMRun: a Kafka version's slope on
// its floor is settled against the same version with RocksJava's
// read-options fix, as the fixed model's is against all-fixes.
func TestSettleCommandNamesTheControlOfAJVMRun(t *testing.T) {
	r := &schema.Result{Runs: map[string]*schema.Run{"kafka-4.3.1": {Summary: schema.Summary{Lifecycles: 800}}}}
	r.Scenario.Name, r.Scenario.Seed = "kafka-20616", 7
	d := stats.DecideSignals(stats.Fit{PerLifecycle: stats.Estimate{Value: 300, Low: 200, High: 400, SE: 50, DF: 200, Valid: true}, Samples: 500, SamplesUsed: 450, LifecyclesUsed: 900},
		stats.Fit{PerLifecycle: stats.Estimate{Value: 40000, Low: 30000, High: 50000, SE: 5000, DF: 200, Valid: true}, Samples: 500, SamplesUsed: 450, LifecyclesUsed: 900}, stats.DecideOptions{})
	require.True(t, d.NeedsControl(), d.Reason)
	assert.Contains(t, SettleCommand(r, "kafka-4.3.1", d), ": rocksleak run --scenario kafka-20616 --models kafka-4.3.1,kafka-4.3.1+read-options-fix --seed 7 --lifecycles 3000")
}
