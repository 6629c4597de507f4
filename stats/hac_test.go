package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/montecarlo"
)

func TestNeweyWestKnown(t *testing.T) {
	tests := []struct {
		name      string
		X         *mat.Dense
		resid     []float64
		bandwidth float64
		want      [][]float64
	}{
		{
			// Mean only: V = (Σu² + 2·w₁·Σuₜuₜ₋₁)/n², w₁ = 1 − 1/2.
			// Σu² = 10, Σuₜuₜ₋₁ = −1 − 2 − 4 = −7 → V = (10 − 7)/16.
			name: "mean, bandwidth 2", X: mat.NewDense(4, 1, []float64{1, 1, 1, 1}),
			resid: []float64{1, -1, 2, -2}, bandwidth: 2, want: [][]float64{{3.0 / 16}},
		},
		{
			// Bandwidth 1 gives no lags: White's HC0, Σu²/n².
			name: "mean, bandwidth 1 (HC0)", X: mat.NewDense(4, 1, []float64{1, 1, 1, 1}),
			resid: []float64{1, -1, 2, -2}, bandwidth: 1, want: [][]float64{{10.0 / 16}},
		},
		{
			// HC0 with a slope: B = (XᵀX)⁻¹ = [5 −3; −3 3]/6, meat Σu²xxᵀ =
			// [6 6; 6 8], V = B·meat·B = [42 −18; −18 18]/36.
			name: "line, HC0", X: mat.NewDense(3, 2, []float64{1, 0, 1, 1, 1, 2}),
			resid: []float64{1, -2, 1}, bandwidth: 1,
			want: [][]float64{{42.0 / 36, -0.5}, {-0.5, 0.5}},
		},
		{
			// Bandwidth 3 adds lag 1 (w₁ = 2/3) and lag 2 (w₂ = 1/3):
			// Γ₁ = Σ uₜuₜ₋₁ xₜxₜ₋₁ᵀ = −2·[1 0; 1 0] − 2·[1 1; 2 2] = [−4 −2; −6 −4],
			// Γ₂ = u₃u₁ x₃x₁ᵀ = [1 0; 2 0]; meat = [6 6; 6 8] + (2/3)(Γ₁+Γ₁ᵀ) +
			// (1/3)(Γ₂+Γ₂ᵀ) = [4/3 4/3; 4/3 8/3]; B·meat·B = [52/3 −12; −12 12]/36.
			name: "line, bandwidth 3", X: mat.NewDense(3, 2, []float64{1, 0, 1, 1, 1, 2}),
			resid: []float64{1, -2, 1}, bandwidth: 3,
			want: [][]float64{{52.0 / 3 / 36, -1.0 / 3}, {-1.0 / 3, 1.0 / 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cov, bw, err := NeweyWest(tt.X, tt.resid, tt.bandwidth)
			require.NoError(t, err)
			assert.Equal(t, tt.bandwidth, bw)
			for i := range tt.want {
				for j := range tt.want[i] {
					assert.InDelta(t, tt.want[i][j], cov.At(i, j), 1e-12, "(%d,%d)", i, j)
				}
			}
		})
	}
}

// TestAndrewsBandwidth checks the plug-in on a long AR(1) series, where the
// AR(1) estimate is close to φ: α(1) = 4φ²/((1−φ)²(1+φ)²) and
// S = 1.1447·(α(1)·n)^{1/3}.
func TestAndrewsBandwidth(t *testing.T) {
	for _, phi := range []float64{0.3, 0.7} {
		n := 100000
		u := ar1(seeded(11), n, phi, 1)
		X := mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			X.Set(i, 0, 1)
		}
		alpha := 4 * phi * phi / ((1 - phi) * (1 - phi) * (1 + phi) * (1 + phi))
		want := 1.1447 * math.Cbrt(alpha*float64(n))
		assert.InEpsilon(t, want, AndrewsBandwidth(X, u), 0.05, "phi %v", phi)
	}
	// White noise: bandwidth near 1 (α(1) ≈ 0).
	n := 2000
	u := ar1(seeded(12), n, 0, 1)
	X := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, 1)
	}
	assert.Less(t, AndrewsBandwidth(X, u), 3.0)
}

// TestCoverage is the reason for Regress: under AR(1) errors (φ = 0.7,
// realistic size for memory samples) the 95% interval of a known slope
// must cover it in 90–98% of simulated series, while plain OLS standard
// errors undercover badly. Plain Newey–West is reported for comparison.
func TestCoverage(t *testing.T) {
	montecarlo.SkipInShort(t)
	const (
		reps  = 1000
		n     = 500
		phi   = 0.7
		slope = 11000.0
	)
	r := seeded(2024)
	L := make([]float64, n)
	for i := range L {
		L[i] = float64(i + 1)
	}
	X := design(L)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 2}.Quantile(0.975)
	var hac, ols, nw int
	for rep := 0; rep < reps; rep++ {
		noise := ar1(r, n, phi, 20000)
		y := make([]float64, n)
		for i := range y {
			y[i] = 5e6 + slope*L[i] + noise[i]
		}
		reg, err := Regress(X, y, 0.95)
		require.NoError(t, err)
		if reg.Low[1] <= slope && slope <= reg.High[1] {
			hac++
		}
		o := reg.OLS
		se := math.Sqrt(o.SSR / (n - 2) * o.XtXInv.At(1, 1))
		if math.Abs(o.Coef[1]-slope) <= tq*se {
			ols++
		}
		cov, _, err := NeweyWest(X, o.Resid, 0)
		require.NoError(t, err)
		if math.Abs(o.Coef[1]-slope) <= tq*math.Sqrt(cov.At(1, 1)) {
			nw++
		}
	}
	cHAC, cOLS, cNW := float64(hac)/reps, float64(ols)/reps, float64(nw)/reps
	t.Logf("coverage of nominal 95%% (n=%d, AR(1) φ=%.1f, %d series): Regress %.3f, plain Newey–West %.3f, plain OLS %.3f", n, phi, reps, cHAC, cNW, cOLS)
	assert.GreaterOrEqual(t, cHAC, 0.90)
	assert.LessOrEqual(t, cHAC, 0.98)
	assert.Less(t, cOLS, 0.85, "plain OLS should undercover on autocorrelated data")
}

// TestCoverageWhite: with independent noise the prewhitening must not make
// intervals too wide or too narrow.
func TestCoverageWhite(t *testing.T) {
	const reps, n = 400, 300
	r := seeded(7)
	L := make([]float64, n)
	for i := range L {
		L[i] = float64(i + 1)
	}
	X := design(L)
	var hit int
	for rep := 0; rep < reps; rep++ {
		y := make([]float64, n)
		for i := range y {
			y[i] = 1000*L[i] + 5000*r.NormFloat64()
		}
		reg, err := Regress(X, y, 0.95)
		require.NoError(t, err)
		if reg.Low[1] <= 1000 && 1000 <= reg.High[1] {
			hit++
		}
	}
	c := float64(hit) / reps
	t.Logf("coverage under white noise: %.3f", c)
	assert.InDelta(t, 0.95, c, 0.03)
}

func TestRegressErrors(t *testing.T) {
	X := design([]float64{1, 2, 3, 4, 5, 6})
	_, err := Regress(X, []float64{1, 2, 3}, 0.95)
	assert.Error(t, err)
	_, err = Regress(X, []float64{1, 2, 3, 4, 5, 6}, 1.5)
	assert.Error(t, err)
	_, err = Regress(design([]float64{2, 2, 2, 2, 2, 2}), []float64{1, 2, 3, 4, 5, 6}, 0.95)
	assert.ErrorIs(t, err, ErrSingular)
}
