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

// TestGuardedStopRuleHoldsToHorizon: with HoldsToHorizon an early "leak"
// also needs the native heap's rate, carried to the planned horizon as its
// growth bends (rateAtHorizon), to stay above the floor. The fits are those
// of statscheck -early's plateau run 123 (3 MiB, τ = 0.3 × the run) at its
// first look, 230 of 1,500 lifecycles: native +5.14 KiB/lifecycle, its rate
// bending from 5.69 to 4.65 KiB/lifecycle, too little for the growth-slows
// flag, its later half +5.17 KiB/lifecycle. The first guarded rule
// (HoldsToHorizon false) calls it a leak, as it did (the full run calls
// it "no leak"); the guard does not. An 11 KiB/lifecycle leak that bends
// as much by noise, and a straight one, are still called early (positive
// controls).
func TestGuardedStopRuleHoldsToHorizon(t *testing.T) {
	plateau := withRates(fitWith(4160, 6360, 88), 5828, 4757)
	plateauRSS := fitWith(4570, 6800, 73)
	recent := fitWith(4290, 6300, 42)
	bentLeak := withRates(fitWith(10000, 12000, 88), 11400, 9300)
	straight := withRates(fitWith(3500, 4500, 88), 4000, 4000)
	for _, tc := range []struct {
		name   string
		native Fit
		stops  bool
	}{
		{"plateau bending below the floor by the horizon", plateau, false},
		{"11 KiB leak bending as much (positive)", bentLeak, true},
		{"straight 4 KiB leak (positive)", straight, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			look := LookData{Lifecycles: 230, Native: tc.native, RSS: plateauRSS, RecentNative: &recent}
			for _, holds := range []bool{false, true} {
				var st StopState
				rule := StopRule{PlannedLifecycles: 1500, Guarded: true, HoldsToHorizon: holds}
				d, stop := rule.Look(&st, look, DecideOptions{})
				if !holds || tc.stops {
					assert.True(t, stop, "HoldsToHorizon %v: %s", holds, d.Reason)
					assert.Equal(t, VerdictLeak, d.Verdict, d.Reason)
					continue
				}
				assert.False(t, stop, d.Reason)
				assert.Equal(t, VerdictInconclusive, d.Verdict)
				assert.Contains(t, d.Reason, "carried on so to the planned 1500 lifecycles it falls to +1.")
			}
		})
	}
}
