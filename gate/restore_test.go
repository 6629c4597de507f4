package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestoreTimeUnpairedWarns: when one side has too few restores for the medians' ratio interval, the check has
// no noise model for the baseline's median, so above the limit it warns and never fails on the candidate's own
// interval. The case is a real A/A pair of make gate-aa on a quiet machine (fixed at seeds 1014 and 1015, the same
// code): the baseline restored twice (159 and 149 ms), the candidate six times later in its run, where each restore
// replays more changelog (253-611 ms, its median's own interval [253, 611] ms); before, that FAILed as "a
// regression". Positive control: with six restores on both sides, a candidate twice as slow still fails.
func TestRestoreTimeUnpairedWarns(t *testing.T) {
	p := policyOf(Check{Name: "restore_time", Metric: "restore_time_p50", Op: OpRatio, Factor: 1.25, Floor: 20e6})
	base := restoresOf(159, 149)
	cand := restoresOf(253, 255, 517, 447, 611, 559)
	cand.Restore.P50LowNs, cand.Restore.P50HighNs = 253e6, 611e6
	rep, err := Evaluate(p, resultOf(t, 1, base), resultOf(t, 2, cand), Options{})
	require.NoError(t, err)
	c := checkNamed(t, rep, "restore_time")
	assert.Equal(t, Warn, c.Outcome, c.Reason)
	assert.Contains(t, c.Reason, "too few restores", c.Reason)

	quiet := restoresOf(40, 38, 45, 41, 39, 52, 43, 40, 48, 42)
	double := restoresOf(80, 76, 90, 82, 78, 104, 86, 80, 96, 84)
	rep, err = Evaluate(p, resultOf(t, 1, quiet), resultOf(t, 2, double), Options{})
	require.NoError(t, err)
	assert.Equal(t, Fail, checkNamed(t, rep, "restore_time").Outcome)
}
