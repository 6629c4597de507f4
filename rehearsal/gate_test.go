package rehearsal

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/rocksleak/rocksleak/gate"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// Recovery peaks far above a phase's growth (~1.5 MiB of RSS on fixed):
// bigPeak climbs 256 MiB of RSS (128 MiB native) over 6 samples and falls
// back to half; bigRamp climbs 140 MiB (100 MiB native) over 10 samples
// and settles at 128 (96), the shape that biases an uncut slope upwards.
var (
	bigPeak = peak{nativeTop: 128 * mib, nativePlateau: 64 * mib, rssTop: 256 * mib, rssPlateau: 128 * mib, rise: 6, decay: 2}
	bigRamp = peak{nativeTop: 100 * mib, nativePlateau: 96 * mib, rssTop: 140 * mib, rssPlateau: 128 * mib, rise: 10, decay: 2}
)

// canaryRehearsal is a fleet of 4 on fixed for a baseline phase, then
// instance 0 restarted on candModel with the given recovery peak and lag
// stall; it returns the rehearsal and the canary phase's index.
func canaryRehearsal(seed uint64, candModel string, pk peak, stallMs int64) (*schema.Rehearsal, int) {
	s := newSynth(seed, "fixed", candModel, [][]int{{0, 1}, {2, 3}})
	for id := range 4 {
		s.start(id, "fixed", "baseline", 0, 0)
	}
	s.phase("baseline", nil)
	s.start(0, candModel, "canary", phaseMs, stallMs)
	s.ps[0].peak = pk
	return s.r, s.phase("canary", []int{0})
}

func checkOf(t *testing.T, g *schema.GateRecord, metric string, instance int) schema.GateCheckRecord {
	t.Helper()
	for _, c := range g.Checks {
		if c.Metric == metric && c.Name == checkName(t, metric)+" (instance "+strconv.Itoa(instance)+")" {
			return c
		}
	}
	t.Fatalf("no check of %s for instance %d in %+v", metric, instance, g.Checks)
	return schema.GateCheckRecord{}
}

func checkName(t *testing.T, metric string) string {
	for _, c := range gate.DefaultPolicy().Checks {
		if c.Metric == metric {
			return c.Name
		}
	}
	t.Fatalf("the default policy has no %s check", metric)
	return ""
}

// Negative control: a canary restarted on the baseline's own model, with a
// recovery peak ~100× the phase's growth at the start of its phase, passes
// every slope check: the fits cut the peak as warm-up. The ramp is not
// harmless by construction: fitted without the warm-up cut, the same
// samples fail the RSS check.
func TestGateRecoveryPeakDoesNotFailSlope(t *testing.T) {
	for _, pk := range []peak{bigPeak, bigRamp} {
		for seed := uint64(10); seed < 13; seed++ {
			recoveryPeakCase(t, pk, seed, pk == bigRamp)
		}
	}
}

func recoveryPeakCase(t *testing.T, pk peak, seed uint64, uncutFails bool) {
	{
		r, canary := canaryRehearsal(seed, "fixed", pk, 45_000)
		g, err := Gate(gate.DefaultPolicy(), r, canary, []int{0}, []int{1, 2, 3})
		require.NoError(t, err)
		assert.Equal(t, OutcomePass, g.Outcome, "seed %d: %s", seed, g.Reason)
		rss := checkOf(t, g, "rss_growth_per_million_records", 0)
		nat := checkOf(t, g, "native_growth_per_lifecycle", 0)
		assert.Equal(t, OutcomePass, rss.Outcome, rss.Reason)
		assert.Equal(t, OutcomePass, nat.Outcome, nat.Reason)

		// The same samples fitted naively: least squares over the whole
		// phase, no warm-up cut.
		var xs, ys []float64
		for _, smp := range r.Phases[canary].Instances[0].Samples {
			xs, ys = append(xs, float64(smp.Records)), append(ys, float64(smp.RSS))
		}
		_, naive := stat.LinearRegression(xs, ys, nil, false)
		naive *= 1e6
		if uncutFails {
			assert.Greater(t, naive, 10*rss.Limit,
				"seed %d: fitted naively the ramp reads as %.1f MiB/1M records", seed, naive/mib)
		}
	}
}

// Positive control: a canary with a sustained extra slope (fixed with a
// synthetic leak against a fixed baseline), restarted with the same peak,
// fails both slope checks, each on an interval lying above its limit.
func TestGateSustainedSlopeFails(t *testing.T) {
	for seed := uint64(10); seed < 13; seed++ {
		r, canary := canaryRehearsal(seed, "fixed+synthetic", bigPeak, 45_000)
		g, err := Gate(gate.DefaultPolicy(), r, canary, []int{0}, []int{1, 2, 3})
		require.NoError(t, err)
		assert.Equal(t, OutcomeFail, g.Outcome, "seed %d: %s", seed, g.Reason)
		for _, m := range []string{"rss_growth_per_million_records", "native_growth_per_lifecycle"} {
			c := checkOf(t, g, m, 0)
			assert.Equal(t, OutcomeFail, c.Outcome, "seed %d: %s", seed, c.Reason)
			assert.Greater(t, c.CandidateLow, c.Limit, "a fail rests on the interval's lower bound")
			assert.Contains(t, c.Reason, "lies above limit")
			assert.Contains(t, g.Reason, c.Name)
		}
		// The baseline is the mean of the three baseline instances' slopes.
		a, err := Analyze(r)
		require.NoError(t, err)
		var sum float64
		for _, ia := range a.Phases[canary].Instances[1:] {
			sum += ia.NativePerLifecycle.Value
		}
		assert.InDelta(t, sum/3, checkOf(t, g, "native_growth_per_lifecycle", 0).Baseline, 1e-6)
	}
}

// Consumer lag: a restart stall the canary catches up within 2 minutes
// passes; one of 2m30s fails, quoting it.
func TestGateConsumerLag(t *testing.T) {
	for _, tc := range []struct {
		stallMs int64
		want    string
		reason  string
	}{
		{45_000, OutcomePass, "45s ≤ limit 2m0s"},
		{120_000, OutcomePass, "2m0s ≤ limit 2m0s"},
		{150_000, OutcomeFail, "2m30s > limit 2m0s"},
	} {
		r, canary := canaryRehearsal(20, "fixed", defaultPeak, tc.stallMs)
		g, err := Gate(gate.DefaultPolicy(), r, canary, []int{0}, []int{1, 2, 3})
		require.NoError(t, err)
		c := checkOf(t, g, "consumer_lag_max", 0)
		assert.Equal(t, tc.want, c.Outcome, c.Reason)
		assert.Contains(t, c.Reason, tc.reason)
		assert.Equal(t, float64(tc.stallMs)*1e6, c.Candidate, "nanoseconds")
		assert.Equal(t, 120e9, c.Limit)
		assert.Equal(t, tc.want, g.Outcome, g.Reason)
	}
}

// Counts and restore time: task errors and lost records fail at 1; a
// median restore time slower than max(baseline × 1.25, baseline + 20 ms),
// which has no interval of its own (3 restores), fails when it is also above
// the spread of the baseline instances' medians (judgeSpread).
func TestGateCountsAndRestore(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mut    func(*schema.InstancePhase)
		metric string
		want   string
	}{
		{"clean", func(*schema.InstancePhase) {}, "task_errors", OutcomePass},
		{"a task error fails", func(ip *schema.InstancePhase) { ip.Summary.TaskErrors = 1 }, "task_errors", OutcomeFail},
		{"a lost record fails", func(ip *schema.InstancePhase) { ip.Summary.RecordsLost = 1 }, "records_lost", OutcomeFail},
		{"restore within the floor passes", func(ip *schema.InstancePhase) { ip.Summary.Restore.P50Ns = 55e6 }, "restore_time_p50", OutcomePass},
		{"restore twice as slow fails", func(ip *schema.InstancePhase) { ip.Summary.Restore.P50Ns = 120e6 }, "restore_time_p50", OutcomeFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, canary := canaryRehearsal(30, "fixed", defaultPeak, 30_000)
			tc.mut(&r.Phases[canary].Instances[0])
			g, err := Gate(gate.DefaultPolicy(), r, canary, []int{0}, []int{1, 2, 3})
			require.NoError(t, err)
			c := checkOf(t, g, tc.metric, 0)
			assert.Equal(t, tc.want, c.Outcome, c.Reason)
			assert.Equal(t, tc.want, g.Outcome, g.Reason)
		})
	}
}

// Every candidate is judged; the gate fails when one does.
func TestGateSeveralCandidates(t *testing.T) {
	r := rolloutFixture(t)
	g := r.Phases[3].Gate
	require.NotNil(t, g)
	assert.Equal(t, []int{2, 3}, g.Candidates)
	assert.Len(t, g.Checks, 2*len(gate.DefaultPolicy().Checks))
	r.Phases[3].Instances[3].Summary.TaskErrors = 2
	g, err := Gate(gate.DefaultPolicy(), r, 3, []int{2, 3}, []int{0, 1})
	require.NoError(t, err)
	assert.Equal(t, OutcomeFail, g.Outcome)
	assert.Equal(t, OutcomePass, checkOf(t, g, "task_errors", 2).Outcome)
	assert.Equal(t, OutcomeFail, checkOf(t, g, "task_errors", 3).Outcome)
	assert.Contains(t, g.Reason, "task_errors (instance 3): 2 ≠ 0")
}

func TestGateInvalidInput(t *testing.T) {
	r, canary := canaryRehearsal(40, "fixed", defaultPeak, 30_000)
	for _, tc := range []struct {
		name        string
		phase       int
		cands, base []int
		want        string
	}{
		{"phase out of range", 7, []int{0}, []int{1}, "phase 7"},
		{"no candidate", canary, nil, []int{1}, "at least one candidate"},
		{"no baseline", canary, []int{0}, nil, "at least one candidate and one baseline"},
		{"unknown instance", canary, []int{9}, []int{1}, "candidate instance 9 is not in phase"},
		{"both sides", canary, []int{0}, []int{0, 1}, "both a candidate and a baseline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Gate(gate.DefaultPolicy(), r, tc.phase, tc.cands, tc.base)
			require.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err := Gate(gate.Policy{}, r, canary, []int{0}, []int{1})
	assert.ErrorIs(t, err, gate.ErrInvalidPolicy)
}

// A check's reason never contradicts the numbers it quotes: pass means the
// candidate is within its limit; fail on an estimate means its whole
// interval lies above; warn means above the limit with the interval
// reaching below.
func TestGateReasonsMatchIntervals(t *testing.T) {
	var recs []*schema.GateRecord
	for _, r := range []*schema.Rehearsal{rolloutFixture(t), rollbackFixture(t)} {
		for _, ph := range r.Phases {
			if ph.Gate != nil {
				recs = append(recs, ph.Gate)
			}
		}
	}
	r, canary := canaryRehearsal(12, "fixed+synthetic", bigPeak, 150_000)
	g, err := Gate(gate.DefaultPolicy(), r, canary, []int{0}, []int{1, 2, 3})
	require.NoError(t, err)
	recs = append(recs, g)
	n := map[string]int{}
	for _, g := range recs {
		for _, c := range g.Checks {
			n[c.Outcome]++
			estimate := c.CandidateLow != c.CandidateHigh
			switch c.Outcome {
			case OutcomePass:
				assert.LessOrEqual(t, c.Candidate, c.Limit, c.Reason)
			case OutcomeFail:
				if estimate {
					assert.Greater(t, c.CandidateLow, c.Limit, c.Reason)
				} else {
					assert.NotEqual(t, c.Candidate, c.Limit, c.Reason)
				}
			case OutcomeWarn:
				assert.Greater(t, c.Candidate, c.Limit, c.Reason)
				assert.LessOrEqual(t, c.CandidateLow, c.Limit, c.Reason)
			default:
				t.Errorf("outcome %q", c.Outcome)
			}
			if estimate {
				assert.LessOrEqual(t, c.CandidateLow, c.Candidate)
				assert.GreaterOrEqual(t, c.CandidateHigh, c.Candidate)
			}
		}
		if g.Outcome == OutcomeFail {
			assert.Contains(t, g.Reason, "failed")
		}
	}
	assert.Positive(t, n[OutcomePass])
	assert.Positive(t, n[OutcomeFail])
}

// policyOf is the policy a rehearsal recorded.
func policyOf(t testing.TB, r *schema.Rehearsal) gate.Policy {
	t.Helper()
	p, err := gate.ParsePolicy([]byte(r.Policy))
	require.NoError(t, err)
	return p
}

// The baselines' slope is the mean of their valid estimates.
func TestMeanEstimate(t *testing.T) {
	e := func(v float64, valid bool) stats.Estimate {
		return stats.Estimate{Value: v, Low: v - 10, High: v + 10, SE: 5, DF: v, Valid: valid}
	}
	for _, tc := range []struct {
		name  string
		in    []stats.Estimate
		want  float64
		valid bool
	}{
		{"one", []stats.Estimate{e(100, true)}, 100, true},
		{"mean of three", []stats.Estimate{e(100, true), e(200, true), e(600, true)}, 300, true},
		{"an invalid one is left out", []stats.Estimate{e(100, true), e(9999, false), e(300, true)}, 200, true},
		{"none valid", []stats.Estimate{e(100, false)}, 0, false},
		{"empty", nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := meanEstimate(tc.in)
			assert.Equal(t, tc.valid, got.Valid)
			assert.InDelta(t, tc.want, got.Value, 1e-9)
			if tc.valid {
				assert.InDelta(t, tc.want-10, got.Low, 1e-9)
				assert.InDelta(t, tc.want+10, got.High, 1e-9)
			}
		})
	}
}

func TestAnalyzeRejectsUnknownInstance(t *testing.T) {
	r, _ := canaryRehearsal(33, "fixed", defaultPeak, 30_000)
	r.Phases[1].Instances[2].Instance = 42
	_, err := Analyze(r)
	require.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "instance 42, which is not in the fleet")
}

// slowClimb is a restarted process's RSS climbing back to the fleet's level
// over its whole first phase (its allocator's arenas and RocksDB's caches
// filling) and flat after: 6 MiB over the phase's 51,200 records, about
// 117 MiB per 1M records, three times the RSS check's floor.
var slowClimb = peak{rssTop: 6 * mib, rssPlateau: 6 * mib, rise: samplesPerPhase, decay: 1}
