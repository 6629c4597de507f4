package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/stats"
)

// TestControlledVerdict: the gate judges the candidate against the baseline
// on the difference of their native-heap slopes, with the policy's allowed
// growth as the margin (0 without a native ratio check). A regression that
// the difference's interval puts above the margin fails the gate; one
// inside it, or one the interval cannot tell, does not.
func TestControlledVerdict(t *testing.T) {
	base := resultOf(t, 1, runOf("fixed", est(500, 400, 600), pt(0)))
	tasks := Check{Name: "task_errors", Metric: "task_errors", Op: OpEqual, Value: f64(0)}
	for _, tc := range []struct {
		name      string
		policy    Policy
		candidate stats.Estimate
		verdict   string
		outcome   Outcome
	}{
		{"no ratio check: +300 B found", policyOf(tasks), est(800, 700, 900), "leak", Fail},
		{"no ratio check: same growth", policyOf(tasks), est(510, 410, 610), "inconclusive", Pass},
		{"within the policy's 2 KiB", policyOf(nativeRatio), est(1500, 1400, 1600), "no leak", Pass},
		{"beyond the policy's 2 KiB", policyOf(nativeRatio), est(3500, 3400, 3600), "leak", Fail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cand := resultOf(t, 2, runOf("fixed", tc.candidate, pt(0)))
			rep, err := Evaluate(tc.policy, base, cand, Options{})
			require.NoError(t, err)
			require.NotNil(t, rep.Controlled)
			assert.Equal(t, tc.verdict, rep.Controlled.Verdict, rep.Controlled.Reason)
			assert.Equal(t, tc.outcome, rep.Outcome)
			d := rep.Controlled.Difference
			assert.InDelta(t, tc.candidate.Value-500, d.Value, 1e-9)
			assert.True(t, d.Low < d.Value && d.Value < d.High)
		})
	}
}
