package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

func TestOLS(t *testing.T) {
	tests := []struct {
		name  string
		X     [][]float64
		y     []float64
		coef  []float64
		r2    float64
		resid []float64 // nil: not checked
	}{
		{
			name: "exact plane y = 3 + 2a − 0.5b",
			X:    [][]float64{{1, 0, 0}, {1, 1, 4}, {1, 2, 1}, {1, 3, 9}, {1, 4, 2}, {1, 5, 7}},
			y:    []float64{3, 3, 6.5, 4.5, 10, 9.5},
			coef: []float64{3, 2, -0.5},
			r2:   1,
		},
		{
			// By hand: x̄ = 3, ȳ = 2.06, Sxy = 4.25, Sxx = 10 → slope 0.425,
			// intercept 0.785; SSR = 2.79075, SST = 4.597 → R² = 0.392919.
			name:  "textbook five points",
			X:     [][]float64{{1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}},
			y:     []float64{1, 2, 1.3, 3.75, 2.25},
			coef:  []float64{0.785, 0.425},
			r2:    1 - 2.79075/4.597,
			resid: []float64{-0.21, 0.365, -0.76, 1.265, -0.66},
		},
		{
			name: "large offsets (counters near 1e9, bytes near 1e12)",
			X:    [][]float64{{1, 1e9}, {1, 1e9 + 1}, {1, 1e9 + 2}, {1, 1e9 + 3}},
			y:    []float64{1e12 + 11000e9, 1e12 + 11000e9 + 11000, 1e12 + 11000e9 + 22000, 1e12 + 11000e9 + 33000},
			coef: []float64{1e12, 11000},
			r2:   1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			X := mat.NewDense(len(tt.X), len(tt.X[0]), nil)
			for i, row := range tt.X {
				X.SetRow(i, row)
			}
			res, err := OLS(X, tt.y)
			require.NoError(t, err)
			require.Len(t, res.Coef, len(tt.coef))
			for j := range tt.coef {
				assert.InDelta(t, tt.coef[j], res.Coef[j], 1e-9*(1+abs(tt.coef[j])), "coef %d", j)
			}
			assert.InDelta(t, tt.r2, res.R2, 1e-9)
			for i := range tt.resid {
				assert.InDelta(t, tt.resid[i], res.Resid[i], 1e-9)
			}
		})
	}
}

func TestOLSXtXInv(t *testing.T) {
	// X = [1 0; 1 1; 1 2]: XᵀX = [3 3; 3 5], inverse = [5 −3; −3 3]/6.
	X := mat.NewDense(3, 2, []float64{1, 0, 1, 1, 1, 2})
	res, err := OLS(X, []float64{1, 2, 4})
	require.NoError(t, err)
	want := [][]float64{{5.0 / 6, -0.5}, {-0.5, 0.5}}
	for i := range want {
		for j := range want[i] {
			assert.InDelta(t, want[i][j], res.XtXInv.At(i, j), 1e-12)
		}
	}
}

func TestOLSSingular(t *testing.T) {
	tests := map[string]*mat.Dense{
		"constant regressor": mat.NewDense(4, 2, []float64{1, 5, 1, 5, 1, 5, 1, 5}),
		"proportional":       mat.NewDense(4, 3, []float64{1, 1, 2, 1, 2, 4, 1, 3, 6, 1, 4, 8}),
		"more columns":       mat.NewDense(1, 2, []float64{1, 2}),
	}
	for name, X := range tests {
		t.Run(name, func(t *testing.T) {
			r, _ := X.Dims()
			_, err := OLS(X, make([]float64, r))
			assert.ErrorIs(t, err, ErrSingular)
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
