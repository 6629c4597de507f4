package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhitenAdjoint: whitenAdjoint is whiten's adjoint, ⟨Wx, v⟩ = ⟨x, Wᵀv⟩,
// for models of both families.
func TestWhitenAdjoint(t *testing.T) {
	r := seeded(5)
	const m = 50
	for _, em := range []errorModel{{0, 0, false}, {0.7, 0.3, false}, {0.97, 0.01, false}, {0.8, 1, true}, {0.4, 0.5, true}} {
		c0, c1 := em.ma1()
		x, v := make([]float64, m+1), make([]float64, m)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for i := range v {
			v[i] = r.NormFloat64()
		}
		wx, wtv := make([]float64, m), make([]float64, m+1)
		_, ok := whiten(wx, x, em.phi, c0, c1)
		require.True(t, ok)
		whitenAdjoint(wtv, v, em.phi, c0, c1)
		assert.InDelta(t, dot(wx, v), dot(x, wtv), 1e-9*(1+math.Abs(dot(wx, v))), "%+v", em)
	}
}

// TestEstimatorVarianceMatchesSimulation: the variance estimatorVariance
// gives a linear estimator cᵀd under an error model is the variance of cᵀe
// over errors simulated from the model's definition (v a stationary AR(1)
// with innovation variance 1 − r; the walk's steps white with variance r, or
// in the integrated family a stationary AR(1) with innovation variance r),
// within Monte Carlo error (20,000 draws: about 1% standard error).
func TestEstimatorVarianceMatchesSimulation(t *testing.T) {
	r := seeded(6)
	const n, draws = 40, 20000
	c := make([]float64, n-1)
	for i := range c {
		c[i] = r.NormFloat64() + 0.3 // a trend-like weight: not mean zero
	}
	R := laggedSums(c)
	for _, em := range []errorModel{{0, 0, false}, {0, 1, false}, {0.7, 0.3, false}, {0.95, 0.05, false}, {-0.5, 0.2, false}, {0.8, 1, true}, {0.55, 0.35, true}} {
		var sum, sum2 float64
		for range draws {
			v := ar1(r, n, em.phi, math.Sqrt(1-em.r))
			var s []float64
			if em.integ {
				s = ar1(r, n, em.phi, math.Sqrt(em.r))
			} else {
				s = ar1(r, n, 0, math.Sqrt(em.r))
			}
			var x float64
			for i := 1; i < n; i++ {
				x += c[i-1] * (s[i] + v[i] - v[i-1])
			}
			sum += x
			sum2 += x * x
		}
		mean := sum / draws
		got, want := estimatorVariance(R, em), sum2/draws-mean*mean
		assert.InDelta(t, 1, got/want, 0.04, "%+v: estimatorVariance %.4g, simulated %.4g", em, got, want)
	}
}
