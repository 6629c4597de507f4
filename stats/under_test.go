package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// TestRegressUnderRandomWalk: under a random walk (φ = 0, r = 1) the
// differenced errors are white, so the fit is least squares of the
// differences (from the second on, as RegressRobust conditions on the first
// two samples) on the regressor's differences, with no intercept: the
// known answer, computed here by hand.
func TestRegressUnderRandomWalk(t *testing.T) {
	const n = 60
	r := seeded(3)
	L, X := twoLifecyclesPerSample(n)
	y := randomWalk(r, n, 1e3)
	for i := range y {
		y[i] += 500 * L[i]
	}
	f, err := RegressUnder(X, y, ErrorModel{Phi: 0, RandomWalkShare: 1})
	require.NoError(t, err)
	var szz, szd float64
	for i := 2; i < n; i++ {
		z, d := L[i]-L[i-1], y[i]-y[i-1]
		szz += z * z
		szd += z * d
	}
	slope := szd / szz
	var ssr float64
	for i := 2; i < n; i++ {
		e := y[i] - y[i-1] - slope*(L[i]-L[i-1])
		ssr += e * e
	}
	M := float64(n - 2)
	df := M - 1 - 2
	assert.InDelta(t, slope, f.Coef[1], 1e-9*math.Abs(slope))
	assert.InDelta(t, math.Sqrt(ssr/df/szz), f.SE[1], 1e-9*f.SE[1])
	assert.Equal(t, df, f.DF)
	assert.InDelta(t, -M/2*math.Log(ssr/M), f.LogLik, 1e-9)
	assert.Zero(t, f.SE[0], "the intercept vanishes in differences")
}

// TestRegressUnderIsRegressRobustsEstimate: RegressRobust's estimate is the
// GLS estimate at the stationary family's maximum, so RegressUnder at its
// (Rho, RandomWalkShare) gives the same coefficient, and a standard error
// no larger than RegressRobust's (which takes the largest over a region).
func TestRegressUnderIsRegressRobustsEstimate(t *testing.T) {
	r := seeded(5)
	for _, n := range []int{40, 300} {
		L, X := twoLifecyclesPerSample(n)
		y := ar1(r, n, 0.75, 30e3)
		w := randomWalk(r, n, 3e3)
		for i := range y {
			y[i] += 300*L[i] + w[i]
		}
		reg, err := RegressRobust(X, y, 0.95)
		require.NoError(t, err)
		f, err := RegressUnder(X, y, ErrorModel{Phi: reg.Rho, RandomWalkShare: reg.RandomWalkShare})
		require.NoError(t, err)
		assert.InDelta(t, reg.Coef[1], f.Coef[1], 1e-9*math.Abs(reg.Coef[1]), "n=%d", n)
		assert.LessOrEqual(t, f.SE[1], reg.SE[1]*(1+1e-12), "n=%d", n)
		assert.Equal(t, reg.DF, f.DF, "n=%d", n)
	}
}

func TestRegressUnderErrors(t *testing.T) {
	_, X := twoLifecyclesPerSample(20)
	y := make([]float64, 20)
	for i := range y {
		y[i] = float64(i * i)
	}
	tests := []struct {
		name string
		X    *mat.Dense
		y    []float64
		m    ErrorModel
		want string
	}{
		{"phi at 1", X, y, ErrorModel{Phi: 1}, "ErrorModel.Phi"},
		{"phi NaN", X, y, ErrorModel{Phi: math.NaN()}, "ErrorModel.Phi"},
		{"share above 1", X, y, ErrorModel{RandomWalkShare: 1.5}, "ErrorModel.RandomWalkShare"},
		{"rows", X, y[:10], ErrorModel{}, "X has 20 rows, y has 10"},
		{"too few rows", mat.NewDense(6, 2, []float64{1, 0, 1, 1, 1, 2, 1, 3, 1, 4, 1, 5}), y[:6], ErrorModel{}, "too few"},
		{"nothing varies", ones(20), y, ErrorModel{}, "no regressor varies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RegressUnder(tt.X, tt.y, tt.m)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// ones is an n×1 design of the intercept alone.
func ones(n int) *mat.Dense {
	X := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, 1)
	}
	return X
}
