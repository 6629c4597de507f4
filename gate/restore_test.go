package gate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// restoreCheck evaluates the default policy's restore-time check of cand
// against base.
func restoreCheck(t *testing.T, base, cand *schema.Run) CheckResult {
	t.Helper()
	p := policyOf(Check{Name: "restore_time", Metric: "restore_time_p50", Op: OpRatio, Factor: 1.25, Floor: 20e6})
	rep, err := Evaluate(p, resultOf(t, 1, base), resultOf(t, 2, cand), Options{})
	require.NoError(t, err)
	c := checkNamed(t, rep, "restore_time")
	t.Logf("%s %s", c.Outcome, c.Reason)
	return c
}

// withoutEach is run as results written before each restore's records were
// recorded have it: durations and the records in all only.
func withoutEach(run *schema.Run) *schema.Run {
	run.Restore.RecordsEach = nil
	return run
}

// TestRestoreTimeComparesSpeedNotSchedule, the negative controls: two runs
// of the same code whose restores fell at different times compare equal.
// The first is a real A/A pair of make gate-aa on a quiet machine (fixed at
// seeds 1014 and 1015, result.json as written at a57d23a): the baseline
// restored twice (159 and 149 ms, 10,000 records in all), the candidate six
// times later in its run, where each restore replays more changelog (253-611
// ms, 85,000 records). Their medians differ ×3.0, their time per record
// ×1.01 (30.7 and 31.1 µs). Before, it WARNed (and at 969094f FAILed) on
// the medians. The result as written, without each restore's records, has
// no interval and passes on its totals; with each restore's records (its
// samples give only each pair's total, 10,000 for the baseline's pair and
// 20,000, 30,000 and 35,000 for the candidate's, split evenly here) it
// passes too. The second: restores early in the baseline's run (2,500 to
// 20,000 records) against late ones in the candidate's (20,000 to 37,500),
// eight a side at 25 µs a record plus 15 ms each, the spread of real
// restores: the medians differ ×2.5 and the check passes with its interval.
func TestRestoreTimeComparesSpeedNotSchedule(t *testing.T) {
	base := restoresWith([]float64{158.666860, 148.698372}, []int64{5000, 5000})
	cand := restoresWith([]float64{253.306581, 254.913072, 516.787315, 447.071280, 610.660881, 559.053334},
		[]int64{10_000, 10_000, 15_000, 15_000, 17_500, 17_500})
	c := restoreCheck(t, withoutEach(base), withoutEach(cand))
	assert.Equal(t, Pass, c.Outcome, c.Reason)
	assert.Contains(t, c.Reason, "restore time per record replayed ×1.01")
	assert.Equal(t, Pass, restoreCheck(t, base, cand).Outcome)

	early := restoresWith([]float64{81, 74, 270, 262, 420, 445, 540, 521},
		[]int64{2500, 2500, 10_000, 10_000, 15_000, 15_000, 20_000, 20_000})
	late := restoresWith([]float64{530, 548, 790, 760, 905, 960, 935, 1010},
		[]int64{20_000, 20_000, 30_000, 30_000, 35_000, 35_000, 37_500, 37_500})
	c = restoreCheck(t, early, late)
	assert.Equal(t, Pass, c.Outcome, c.Reason)
	require.NotNil(t, c.Candidate)
	assert.True(t, c.Candidate.Interval, "eight restores a side with their records: an interval")
	assert.Contains(t, c.Reason, "bootstrap of 8 baseline and 8 candidate restores")
}

// TestRestoreTimeSlowerPerRecordFails, the positive controls: restores twice
// as slow per record fail, whether their durations double (the same
// records) or stay (half the records each, which the medians could not
// see), when both runs have each restore's records and six or more
// restores; with fewer, or without each restore's records, the same
// slowdown warns and never fails (no noise model), the reason saying why
// before NoNoiseModel, which stays last (a rehearsal reads it). Without
// durations (the JVM engine) the medians stand alone, as before.
func TestRestoreTimeSlowerPerRecordFails(t *testing.T) {
	quiet := restoresOf(40, 38, 45, 41, 39, 52, 43, 40, 48, 42)
	double := restoresOf(80, 76, 90, 82, 78, 104, 86, 80, 96, 84)
	c := restoreCheck(t, quiet, double)
	assert.Equal(t, Fail, c.Outcome, c.Reason)

	halfRecords := restoresOf(40, 38, 45, 41, 39, 52, 43, 40, 48, 42)
	for i := range halfRecords.Restore.RecordsEach {
		halfRecords.Restore.RecordsEach[i] = 5000
	}
	halfRecords.Restore.Records = 50_000
	c = restoreCheck(t, quiet, halfRecords)
	assert.Equal(t, Fail, c.Outcome, c.Reason)
	assert.Contains(t, c.Reason, "restore time per record replayed ×2.00")

	for name, tc := range map[string]struct {
		base, cand *schema.Run
		why        string
	}{
		"two baseline restores": {restoresOf(40, 38), double, "too few restores with records on a side"},
		"without each restore's records": {withoutEach(restoresOf(40, 38, 45, 41, 39, 52, 43, 40, 48, 42)), double,
			"without each restore's records"},
		"without durations": {func() *schema.Run { r := fixedRun(); r.Restore.P50Ns = 40e6; return r }(), double,
			"no restore durations and records on a side"},
	} {
		c := restoreCheck(t, tc.base, tc.cand)
		assert.Equal(t, Warn, c.Outcome, "%s: %s", name, c.Reason)
		assert.Contains(t, c.Reason, tc.why, name)
		assert.True(t, strings.HasSuffix(c.Reason, NoNoiseModel), "%s: NoNoiseModel stays last: %s", name, c.Reason)
	}
}
