package simulate

import (
	"testing"

	"github.com/rocksleak/rocksleak/internal/montecarlo"
	"github.com/rocksleak/rocksleak/stats"
	"github.com/stretchr/testify/assert"
)

func caseNamed(t *testing.T, name string, cases []Case) Case {
	t.Helper()
	for _, c := range cases {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %q", name)
	return Case{}
}

// TestSuiteFast is the fast subset of make stats-check: per case, the
// robust procedure's coverage and false calls meet the goals, and the
// legacy procedure, where the issue says it fails, fails (negative
// controls: the checks can fail). Bursty RSS is covered by the error
// model's integrated family (its own negative control, the stationary
// family alone, is in stats' TestRegressRobustCoverage).
func TestSuiteFast(t *testing.T) {
	montecarlo.SkipInShort(t)
	const reps, seed = 60, 11
	suite := Suite([]int{100, 300})
	tests := []struct {
		name                    string
		minCovNative, minCovRSS float64
		maxFalse                float64
		minLeak                 float64 // share of leak verdicts (power), if > 0
		legacyMaxCovRSS         float64 // legacy must cover RSS less than this, if > 0
		legacyMinFalse          float64 // legacy must make at least this share of false calls, if > 0
	}{
		{name: "random walk RSS, flat, n=300", minCovNative: 0.9, minCovRSS: 0.85, maxFalse: 0.05, legacyMaxCovRSS: 0.6},
		{name: "random walk + noise, flat, n=100", minCovNative: 0.8, minCovRSS: 0.8, maxFalse: 0.05, legacyMaxCovRSS: 0.5},
		{name: "warm-up τ=150, no slope, n=300", maxFalse: 0.05},
		{name: "native flat, RSS +16 KiB, n=100", minCovNative: 0.9, minCovRSS: 0.8, maxFalse: 0.05, legacyMinFalse: 0.06},
		{name: "slope at both floors, n=300", minCovNative: 0.9, minCovRSS: 0.85, maxFalse: 0.05, legacyMaxCovRSS: 0.6},
		{name: "leak at twice the floor, n=300", minCovNative: 0.9, minCovRSS: 0.85, maxFalse: 0.05, minLeak: 0.85},
		{name: "leak 11 KiB, bursty RSS +16 KiB, n=300", minCovNative: 0.9, minCovRSS: 0.9, maxFalse: 0.05, minLeak: 0.85, legacyMaxCovRSS: 0.6},
		{name: "bursty RSS, flat, n=100", minCovNative: 0.9, minCovRSS: 0.9, maxFalse: 0.05, legacyMaxCovRSS: 0.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := caseNamed(t, tt.name, suite)
			proc := Robust()
			r := Run(c, proc, reps, seed)
			t.Logf("%s: %+v", proc.Name, r)
			assert.GreaterOrEqual(t, r.CoverNative, tt.minCovNative)
			assert.GreaterOrEqual(t, r.CoverRSS, tt.minCovRSS)
			assert.LessOrEqual(t, r.FalseRate, tt.maxFalse)
			if tt.minLeak > 0 {
				assert.GreaterOrEqual(t, float64(r.Leak)/reps, tt.minLeak)
			}
			if tt.legacyMaxCovRSS > 0 || tt.legacyMinFalse > 0 {
				l := Run(c, Legacy(), reps, seed)
				t.Logf("legacy: %+v", l)
				if tt.legacyMaxCovRSS > 0 {
					assert.Less(t, l.CoverRSS, tt.legacyMaxCovRSS)
				}
				if tt.legacyMinFalse > 0 {
					assert.GreaterOrEqual(t, l.FalseRate, tt.legacyMinFalse)
				}
			}
		})
	}
}

// TestSequentialFast: the early-verdict rule through the whole procedure
// makes no false call on a benign warm-up, and stops on a leak at twice the
// floor with an interval that covers the truth.
func TestSequentialFast(t *testing.T) {
	montecarlo.SkipInShort(t)
	const reps, seed = 30, 11
	rule := stats.StopRule{PlannedLifecycles: 2 * float64(Looks[len(Looks)-1]-1)}
	suite := SequentialSuite()
	warm := RunSequential(caseNamed(t, "benign warm-up 1 MiB, τ=40", suite), Robust(), rule, Looks, reps, seed)
	t.Logf("%+v", warm)
	assert.LessOrEqual(t, warm.FalseRate, 0.05)
	leak := RunSequential(caseNamed(t, "leak at twice the floor", suite), Robust(), rule, Looks, reps, seed)
	t.Logf("%+v", leak)
	assert.GreaterOrEqual(t, float64(leak.Leak)/reps, 0.9)
	assert.GreaterOrEqual(t, leak.CoverAtStop, 0.9)
	assert.Less(t, leak.MedianStop, Looks[len(Looks)-1], "a clear leak stops early")
}

// TestControlledFast: a 256 B/lifecycle leak is found against its control
// over 1,000 lifecycles; A/A pairs are not called leaks.
func TestControlledFast(t *testing.T) {
	montecarlo.SkipInShort(t)
	r := RunControlled(256, 1000, 30, 11)
	t.Logf("%+v", r)
	assert.GreaterOrEqual(t, r.Detected, 28)
	assert.LessOrEqual(t, r.AAFalse, 2)
	short := RunControlled(256, 200, 30, 11)
	assert.Less(t, short.Detected, 28, "over 200 lifecycles the leak is within the noise")
}

// TestRunCountsWarmupCuts: Run counts the fits that cut a warm-up: most
// runs of a case with a slow warm-up (positive control), almost none of
// white noise (negative control).
func TestRunCountsWarmupCuts(t *testing.T) {
	montecarlo.SkipInShort(t)
	const reps = 30
	suite := Suite([]int{300, 700})
	w := Run(caseNamed(t, "warm-up τ=150, no slope, n=700", suite), Robust(), reps, 11)
	assert.Greater(t, w.CutNative, reps/2, "%+v", w)
	assert.Greater(t, w.CutRSS, reps/2, "%+v", w)
	f := Run(caseNamed(t, "white noise, flat, n=300", suite), Robust(), reps, 11)
	assert.LessOrEqual(t, f.CutNative, 2, "%+v", f)
	assert.LessOrEqual(t, f.CutRSS, 2, "%+v", f)
}
