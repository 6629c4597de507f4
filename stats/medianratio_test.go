package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func lognormal(rng *rand.Rand, n int, median, sdlog float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = median * math.Exp(rng.NormFloat64()*sdlog)
	}
	return xs
}

func TestMedianRatioNeedsEnoughPositiveValues(t *testing.T) {
	six := []float64{1, 2, 3, 4, 5, 6}
	assert.False(t, MedianRatio(six[:5], six, 0.95).Valid, "5 baseline values")
	assert.False(t, MedianRatio(six, six[:5], 0.95).Valid, "5 candidate values")
	assert.False(t, MedianRatio(six, []float64{1, 2, 3, 0, 5, 6}, 0.95).Valid, "a zero")
	e := MedianRatio(six, six, 0.95)
	assert.True(t, e.Valid)
	assert.Equal(t, 1.0, e.Value)
	assert.Less(t, e.Low, 1.0)
	assert.Greater(t, e.High, 1.0)
	assert.Equal(t, e, MedianRatio(six, six, 0.95), "deterministic")
}

// Two samples of one distribution (an A/A pair of restore times, log-normal
// with a factor-of-1.6 spread) give an interval that covers 1 in about 95%
// of pairs, and a candidate twice as slow (both spread by a factor of 1.35)
// an interval above 1.25 (the default gate's factor) in at least 80% of
// pairs (263 of 300 at this seed: 12 restores a side is little): the negative and positive
// controls of the restore-time check's noise model.
func TestMedianRatioCoversAAAndSeesASlowdown(t *testing.T) {
	if testing.Short() {
		t.Skip("Monte Carlo")
	}
	rng := rand.New(rand.NewPCG(29, 44))
	const pairs = 300
	miss, caught := 0, 0
	for range pairs {
		base := lognormal(rng, 12, 40e6, 0.5)
		if e := MedianRatio(base, lognormal(rng, 12, 40e6, 0.5), 0.95); e.Low > 1 || e.High < 1 {
			miss++
		}
		if MedianRatio(lognormal(rng, 12, 40e6, 0.3), lognormal(rng, 12, 80e6, 0.3), 0.95).Low > 1.25 {
			caught++
		}
	}
	assert.InDelta(t, 0.05, float64(miss)/pairs, 0.04, "A/A misses: %d of %d", miss, pairs)
	assert.GreaterOrEqual(t, caught, pairs*8/10, "×2 slowdowns seen: %d of %d", caught, pairs)
}
