package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pairedWithNuisance is a paired difference series over n lifecycles: a slope
// of leak bytes per lifecycle, plus gamma bytes per unit of a nuisance that
// drifts with the lifecycles and swings about that drift (as the difference
// of two runs' timer backlogs does when one run is slower: cov = 400·l/n +
// 300·cos(4π·l/n)), plus AR(1) noise (φ 0.7, 8 KiB sd), seeded.
func pairedWithNuisance(n int, leak, gamma float64, seed uint64) (Input, []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	in := Input{Y: make([]float64, n), Lifecycles: make([]float64, n)}
	cov := make([]float64, n)
	const phi, sd = 0.7, 8 << 10
	var e float64
	for i := range n {
		l := float64(i + 1)
		e = phi*e + math.Sqrt(1-phi*phi)*sd*r.NormFloat64()
		cov[i] = 400*l/float64(n) + 300*math.Cos(4*math.Pi*l/float64(n))
		in.Lifecycles[i] = l
		in.Y[i] = leak*l + gamma*cov[i] + e
	}
	return in, cov
}

func TestComparePairedCovariateFindsALeakBehindANuisance(t *testing.T) {
	// Positive control: 80 B/lifecycle (a 64 B malloc under glibc) behind a
	// 200 B-per-entry nuisance whose own drift over the run is ~39 B/lifecycle.
	in, cov := pairedWithNuisance(2048, 80, 200, 7)
	c, _, err := ComparePairedCovariate(in, cov, Options{}, CompareOptions{})
	require.NoError(t, err)
	require.True(t, c.Estimate.Valid, c.Reason)
	assert.Equal(t, VerdictLeak, c.Verdict, c.Reason)
	assert.LessOrEqual(t, c.Estimate.Low, 80.0, c.Reason)
	assert.GreaterOrEqual(t, c.Estimate.High, 80.0, c.Reason)
	assert.InDelta(t, PairedConfidence, c.Confidence, 1e-12)
}

func TestComparePairedCovariateDoesNotCallTheNuisanceALeak(t *testing.T) {
	// Negative control (A/A): no leak, the same nuisance. Judged with the
	// nuisance as a regressor it is no leak; judged without it (a zero
	// covariate) the nuisance's drift, ~39 B/lifecycle, is read as the
	// difference, which is what the regressor is for.
	in, cov := pairedWithNuisance(2048, 0, 200, 7)
	c, _, err := ComparePairedCovariate(in, cov, Options{}, CompareOptions{})
	require.NoError(t, err)
	require.True(t, c.Estimate.Valid, c.Reason)
	assert.NotEqual(t, VerdictLeak, c.Verdict, c.Reason)
	assert.LessOrEqual(t, c.Estimate.Low, 0.0, c.Reason)
	assert.GreaterOrEqual(t, c.Estimate.High, 0.0, c.Reason)

	without, _, err := ComparePairedCovariate(in, make([]float64, len(cov)), Options{}, CompareOptions{})
	require.NoError(t, err)
	assert.Greater(t, without.Estimate.Value, 25.0, "without the nuisance's regressor: %s", without.Reason)
	assert.Less(t, math.Abs(c.Estimate.Value), 15.0, c.Reason)
}

func TestOLSCovariateRecoversExactCoefficients(t *testing.T) {
	// y = 5 + 3·x + 7·z exactly, z not linear in x: the coefficients come
	// back, at x = z = 0.
	const n = 64
	x, z, y := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float64(10 * i)
		z[i] = math.Sqrt(float64(i)) + float64(i%3)
		y[i] = 5 + 3*x[i] + 7*z[i]
	}
	coef, err := olsCovariate(x, z, y)
	require.NoError(t, err)
	require.Len(t, coef, 3)
	assert.InDelta(t, 5, coef[0], 1e-8)
	assert.InDelta(t, 3, coef[1], 1e-10)
	assert.InDelta(t, 7, coef[2], 1e-8)

	// A covariate that does not vary, or is collinear with x, leaves the fit on x alone.
	for _, z := range [][]float64{make([]float64, n), x} {
		coef, err = olsCovariate(x, z, y)
		require.NoError(t, err)
		assert.Len(t, coef, 2)
	}
	_, err = olsCovariate(x[:2], z[:2], y[:2])
	assert.ErrorIs(t, err, errOLSCovariate)
}

func TestComparePairedCovariateRejectsMismatchedLengths(t *testing.T) {
	in, cov := pairedWithNuisance(100, 0, 0, 1)
	_, _, err := ComparePairedCovariate(in, cov[:99], Options{}, CompareOptions{})
	assert.Error(t, err)
}

func TestBatchMeanDifferencesByHand(t *testing.T) {
	// Three batches of three: means (1, 11, 15) at lifecycles (1, 4, 7), so
	// slopes 10/3 and 4/3 between them; their mean 7/3, SD √2, SD/√2 = 1,
	// scaled for a random walk (K = 2, ρ = 1/4) by √((1 + 1/4)/(1 − 1/4)); 1 df.
	in := Input{Lifecycles: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8}, Y: []float64{0, 1, 2, 10, 11, 12, 14, 15, 16}}
	e := BatchMeanDifferences(in, 3, 0.95)
	require.True(t, e.Valid)
	assert.InDelta(t, 7.0/3, e.Value, 1e-12)
	scale := math.Sqrt(1.25 / 0.75)
	assert.InDelta(t, scale, e.SE, 1e-12)
	assert.Equal(t, 1.0, e.DF)
	assert.InDelta(t, 7.0/3+12.706204736*scale, e.High, 1e-6) // t(1) at 97.5%

	assert.False(t, BatchMeanDifferences(Input{Lifecycles: in.Lifecycles[:8], Y: in.Y[:8]}, 3, 0.95).Valid, "a batch of fewer than 3")
}

// TestBatchMeanDifferencesCoverage: the 95% interval covers the slope under
// a random walk (its case for batches) and under noise that lasts a few
// samples, where it is also narrower than the mean of the batches' own slopes.
func TestBatchMeanDifferencesCoverage(t *testing.T) {
	const n, reps, slope = 2048, 400, 80.0
	r := rand.New(rand.NewPCG(29, 7))
	for _, tc := range []struct {
		name     string
		phi, sd  float64 // AR(1) noise
		walkStep float64 // random-walk steps
	}{{"random walk", 0, 0, 400}, {"short noise", 0.6, 20 << 10, 0}, {"both", 0.6, 20 << 10, 200}} {
		var cover int
		var hwDiff, hwSlopes []float64
		for range reps {
			in := Input{Y: make([]float64, n), Lifecycles: make([]float64, n)}
			var e, w float64
			for i := range n {
				e = tc.phi*e + math.Sqrt(1-tc.phi*tc.phi)*tc.sd*r.NormFloat64()
				w += tc.walkStep * r.NormFloat64()
				in.Lifecycles[i] = float64(i)
				in.Y[i] = slope*float64(i) + e + w
			}
			d := BatchMeanDifferences(in, DefaultBatches, 0.95)
			require.True(t, d.Valid)
			if d.Low <= slope && slope <= d.High {
				cover++
			}
			s := BatchMeansSlope(in, DefaultBatches, 0.95)
			hwDiff, hwSlopes = append(hwDiff, (d.High-d.Low)/2), append(hwSlopes, (s.High-s.Low)/2)
		}
		c := float64(cover) / reps
		assert.GreaterOrEqual(t, c, 0.93, "%s: coverage %.3f", tc.name, c)
		if tc.sd > 0 {
			assert.Less(t, Median(hwDiff), Median(hwSlopes)/1.5, "%s: median half-widths %.1f and %.1f", tc.name, Median(hwDiff), Median(hwSlopes))
		}
		t.Logf("%s: coverage %.3f, median half-width %.1f (batches' own slopes %.1f)", tc.name, c, Median(hwDiff), Median(hwSlopes))
	}
}
