package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default policy's consumer-lag check: 2 minutes of simulated time, in
// nanoseconds; a subject without lag (a result.json's run) cannot have it.
func TestConsumerLagCheck(t *testing.T) {
	var lag Check
	for _, c := range DefaultPolicy().Checks {
		if c.Metric == "consumer_lag_max" {
			lag = c
		}
	}
	require.Equal(t, "consumer_lag", lag.Name, "the default policy has the consumer-lag check")
	require.NotNil(t, lag.Value)
	assert.Equal(t, 120e9, *lag.Value, "2 minutes in nanoseconds")
	assert.Equal(t, UnitNanoseconds, MetricUnit("consumer_lag_max"))

	run := fixedRun()
	for _, tc := range []struct {
		name   string
		lag    *Lag
		want   Outcome
		reason string
	}{
		{"a run has no lag: not applicable", nil, NotApplicable, "reads no stream"},
		{"lag expected but not read: WARN", &Lag{}, Warn, "no lag readings"},
		{"never behind passes", &Lag{Points: 50}, Pass, "0s ≤ limit 2m0s"},
		{"a recovery stall under 2 minutes passes", &Lag{Points: 50, MaxBehindNs: 95e9}, Pass, "1m35s ≤ limit 2m0s"},
		{"exactly 2 minutes passes", &Lag{Points: 50, MaxBehindNs: 120e9}, Pass, "≤ limit"},
		{"over 2 minutes fails", &Lag{Points: 50, MaxBehindNs: 121e9}, Fail, "2m1s > limit 2m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := EvaluateCheck(lag, RunSubject(run), Subject{Run: run, Lag: tc.lag})
			assert.Equal(t, tc.want, res.Outcome, res.Reason)
			assert.Contains(t, res.Reason, tc.reason)
		})
	}
}

// Gating two runs with the default policy decides exactly as before the
// lag check existed: the lag check is listed apart, not among the checks.
func TestLagNotApplicableToRuns(t *testing.T) {
	base, cand := resultOf(t, 1, fixedRun()), resultOf(t, 2, fixedRun())
	rep, err := Evaluate(DefaultPolicy(), base, cand, Options{})
	require.NoError(t, err)
	assert.Equal(t, Pass, rep.Outcome)
	assert.Len(t, rep.Checks, 5)
	require.Len(t, rep.NotApplicable, 1)
	assert.Equal(t, "consumer_lag", rep.NotApplicable[0].Name)
	assert.Nil(t, rep.NotApplicable[0].Candidate)
	for _, c := range rep.Checks {
		assert.NotEqual(t, "consumer_lag", c.Name)
	}
}
