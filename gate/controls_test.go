package gate

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
)

// control is one metric's pair of controls (docs/developing.md, "How to add
// a gate check"): a check on the metric, and what makes a candidate that
// equals the baseline (a fixed run, with a lag for the metrics of a stream)
// fail it. The unchanged candidate must pass it.
type control struct {
	check Check
	fail  func(*Subject)
}

// metricControls holds the controls of the metrics that are not a signal's
// slope (those come from analysis' registry: signalControls).
var metricControls = map[string]control{
	"restore_time_p50": {Check{Metric: "restore_time_p50", Op: OpRatio, Factor: 1.25, Floor: 20e6}, func(s *Subject) {
		// Both sides' restores one by one (the interval of their times per record replayed is the check's
		// noise model): the baseline's ten at 40 ms (subject), the candidate's at 400 ms, 10,000 records each.
		r := &s.Run.Restore
		r.P50Ns, r.P50LowNs, r.P50HighNs = 400e6, 390e6, 410e6
		r.DurationsNs = []int64{400e6, 390e6, 410e6, 395e6, 405e6, 400e6, 398e6, 402e6, 399e6, 401e6}
	}},
	"restore_time_max": {Check{Metric: "restore_time_max", Op: OpMax, Value: f64(1e9)}, func(s *Subject) {
		s.Run.Restore.MaxNs = 2e9
	}},
	"task_errors":   {Check{Metric: "task_errors", Op: OpEqual, Value: f64(0)}, func(s *Subject) { s.Run.TaskErrors = 3 }},
	"records_lost":  {Check{Metric: "records_lost", Op: OpEqual, Value: f64(0)}, func(s *Subject) { s.Run.RecordsLost = 5 }},
	"pinned_dbs":    {Check{Metric: "pinned_dbs", Op: OpEqual, Value: f64(0)}, func(s *Subject) { s.Run.PinnedDBs = 1 }},
	"init_failures": {Check{Metric: "init_failures", Op: OpEqual, Value: f64(0)}, func(s *Subject) { s.Run.InitFailures = 2 }},
	"live_natives_at_end": {Check{Metric: "live_natives_at_end", Op: OpEqual, Value: f64(0)}, func(s *Subject) {
		s.Run.LedgerAtEnd = map[string]int64{"options": 2}
	}},
	"consumer_lag_max": {Check{Metric: "consumer_lag_max", Op: OpMax, Value: f64(120e9)}, func(s *Subject) {
		s.Lag.MaxBehindNs = 300e9
	}},
}

// signalControls are the controls of the registered signals' slopes: a
// slope far above the baseline's, with an interval above the limit.
func signalControls() map[string]control {
	out := map[string]control{}
	for _, d := range analysis.Registered() {
		if d.Gate == nil {
			continue
		}
		sig := d.Key
		out[d.Gate.Prefix+"_growth_per_lifecycle"] = control{
			Check{Metric: d.Gate.Prefix + "_growth_per_lifecycle", Op: OpRatio, Factor: 1.2, Floor: 1},
			func(s *Subject) { s.Run.Fits[sig].Total.PerLifecycle = est(1e6, 9e5, 1.1e6) }}
		if d.Gate.PerMillion {
			out[d.Gate.Prefix+"_growth_per_million_records"] = control{
				Check{Metric: d.Gate.Prefix + "_growth_per_million_records", Op: OpRatio, Factor: 1.2, Floor: 1},
				func(s *Subject) { s.Run.Fits[sig].Total.PerMillionRecords = est(1e12, 9e11, 1.1e12) }}
		}
	}
	return out
}

// TestEveryMetricHasControls follows "How to add a gate check": every metric
// of the catalogue has a negative control (a candidate equal to the baseline
// passes) and a positive one (the candidate made to regress fails). A metric
// added without its controls fails here. Shown failing with a metric
// "open_iterators" added to the catalogue and no entry in metricControls.
func TestEveryMetricHasControls(t *testing.T) {
	controls := signalControls()
	for name, c := range metricControls {
		controls[name] = c
	}
	subject := func() Subject {
		run := fixedRun()
		run.Restore.DurationsNs = []int64{40e6, 39e6, 41e6, 40e6, 38e6, 42e6, 40e6, 40e6, 39e6, 41e6}
		run.Restore.RecordsEach = slices.Repeat([]int64{10_000}, 10)
		run.Restore.Records = 100_000
		s := RunSubject(run)
		s.Lag = &Lag{Points: 10, MaxBehindNs: 1e9}
		return s
	}
	for _, name := range Metrics() {
		t.Run(name, func(t *testing.T) {
			c, ok := controls[name]
			require.True(t, ok, "metric %s has no controls: add them to metricControls (docs/developing.md)", name)
			require.Equal(t, name, c.check.Metric)
			c.check.Name = name
			require.NoError(t, policyOf(c.check).Validate())

			base, same := subject(), subject()
			got := EvaluateCheck(c.check, base, same)
			assert.Equal(t, Pass, got.Outcome, "negative control: %s", got.Reason)

			worse := subject()
			c.fail(&worse)
			got = EvaluateCheck(c.check, base, worse)
			assert.Equal(t, Fail, got.Outcome, "positive control: %s", got.Reason)
		})
	}
	for name := range controls {
		assert.Contains(t, Metrics(), name, "controls of a metric that is not in the catalogue")
	}
}
