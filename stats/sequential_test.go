package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGuardedStopRule: a guarded rule stops early on "no leak" only after
// MinNoLeakShare of the planned run, with nothing left to see (NotYet) and a
// short native warm-up cut, and on "leak" only when the native heap's later
// half holds a rate above the floor; each guard with the call it lets through
// as a positive control. The unguarded rule stops on all of them (which is
// how the guards were shown to matter: with Guarded false every "waits" case
// stops).
func TestGuardedStopRule(t *testing.T) {
	flatNative, flatRSS := fitWith(-300, 300, 400), fitWith(-2000, 2000, 400)
	leakNative, leakRSS := fitWith(10000, 12000, 400), fitWith(14000, 18000, 400)
	long := flatNative
	long.WarmupSamples = 200 // of 500: the cut is long
	holds, slows := fitWith(9000, 13000, 200), fitWith(500, 3000, 200)
	for _, tc := range []struct {
		name   string
		look   LookData
		stops  bool
		reason string
	}{
		{"no leak before the minimum share", LookData{Lifecycles: 500, Native: flatNative, RSS: flatRSS}, false, "waits for 75% of the planned lifecycles"},
		{"no leak after it (positive)", LookData{Lifecycles: 800, Native: flatNative, RSS: flatRSS}, true, ""},
		{"no leak before a restore", LookData{Lifecycles: 800, Native: flatNative, RSS: flatRSS, NotYet: "a restore"}, false, "waits for a restore"},
		{"no leak on a long warm-up cut", LookData{Lifecycles: 800, Native: long, RSS: flatRSS}, false, "warm-up cut takes 200 of its 500 samples"},
		{"leak whose later half is not fitted", LookData{Lifecycles: 500, Native: leakNative, RSS: leakRSS}, false, "later half was not fitted"},
		{"leak whose later half slows", LookData{Lifecycles: 500, Native: leakNative, RSS: leakRSS, RecentNative: &slows}, false, "does not hold a rate above its floor"},
		{"leak whose later half holds (positive)", LookData{Lifecycles: 500, Native: leakNative, RSS: leakRSS, RecentNative: &holds}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st StopState
			d, stop := StopRule{PlannedLifecycles: 1000, Guarded: true}.Look(&st, tc.look, DecideOptions{})
			assert.Equal(t, tc.stops, stop, d.Reason)
			if !tc.stops {
				assert.Equal(t, VerdictInconclusive, d.Verdict)
				assert.Contains(t, d.Reason, tc.reason)
				assert.Equal(t, "run on", d.Settle)
			}
			var un StopState
			_, stop = StopRule{PlannedLifecycles: 1000}.Look(&un, tc.look, DecideOptions{})
			assert.True(t, stop, "the unguarded rule stops on every case")
		})
	}
	// At the horizon the guards do not hold the verdict back.
	var st StopState
	d, stop := StopRule{PlannedLifecycles: 1000, Guarded: true}.Look(&st, LookData{Lifecycles: 1000, Native: long, RSS: flatRSS}, DecideOptions{})
	assert.True(t, stop)
	assert.Equal(t, VerdictNoLeak, d.Verdict, d.Reason)
}
