package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRateRatioNeedsEnoughPositivePairs(t *testing.T) {
	six := []float64{1, 2, 3, 4, 5, 6}
	assert.False(t, RateRatio(six[:5], six[:5], six, six, 0.95).Valid, "5 baseline pairs")
	assert.False(t, RateRatio(six, six[:5], six, six, 0.95).Valid, "t and n of different lengths")
	assert.False(t, RateRatio(six, six, six, []float64{1, 2, 3, 0, 5, 6}, 0.95).Valid, "a restore of no records")
	e := RateRatio(six, six, six, six, 0.95)
	assert.True(t, e.Valid)
	assert.Equal(t, 1.0, e.Value)
	assert.Equal(t, 1.0, e.Low, "every pair at one rate: every resample's ratio is 1")
	assert.Equal(t, e, RateRatio(six, six, six, six, 0.95), "deterministic")
	assert.True(t, math.IsNaN(Rate([]float64{1}, []float64{0})))
}

// restoresAt simulates a run's restores: k of them, the i-th replaying a
// changelog that grows through the run (start + i·step records: later
// restores replay more), each taking a fixed 15 ms plus perRecord per record,
// times log-normal noise (sdlog 0.15, the spread of a run's own restores per
// record in make gate-aa's quiet runs).
func restoresAt(rng *rand.Rand, k int, start, step, perRecord float64) (ts, ns []float64) {
	for i := range k {
		n := start + float64(i)*step
		ns = append(ns, n)
		ts = append(ts, (15e6+perRecord*n)*math.Exp(0.15*rng.NormFloat64()))
	}
	return ts, ns
}

// An A/A pair whose restore schedules differ (the baseline's restores early
// and short, the candidate's late and long, so their median durations differ
// by a factor of about 3) at one speed: the rate ratio's interval never lies
// above the default gate's ×1.25 and covers 1 in most pairs (173 of 200 at
// this seed: the fixed 15 ms weighs more in short restores), the negative
// control; the ratio of the median durations (MedianRatio) lies above ×1.25
// in 189 of these 200. A candidate twice as slow per record, on the same
// schedule, lies above ×1.25 in 198 of 200 (the positive control).
func TestRateRatioIgnoresScheduleAndSeesASlowdown(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 1))
	const pairs = 200
	covered, falseAlarm, caught := 0, 0, 0
	for range pairs {
		bt, bn := restoresAt(rng, 6, 2500, 2500, 25e3)
		ct, cn := restoresAt(rng, 8, 15000, 2500, 25e3)
		if e := RateRatio(bt, bn, ct, cn, 0.95); e.Low <= 1 && e.High >= 1 {
			covered++
		} else if e.Low > 1.25 {
			falseAlarm++
		}
		st, sn := restoresAt(rng, 8, 15000, 2500, 50e3)
		if RateRatio(bt, bn, st, sn, 0.95).Low > 1.25 {
			caught++
		}
	}
	assert.Zero(t, falseAlarm, "A/A intervals above ×1.25")
	assert.GreaterOrEqual(t, covered, pairs*80/100, "A/A intervals covering 1: %d of %d", covered, pairs)
	assert.GreaterOrEqual(t, caught, pairs*95/100, "×2 per record seen: %d of %d", caught, pairs)
}
