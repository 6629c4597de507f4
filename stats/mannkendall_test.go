package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMannKendall(t *testing.T) {
	tests := []struct {
		name string
		y    []float64
		z, p float64
	}{
		{
			// S = 10, Var S = 5·4·15/18 = 16.667, z = 9/4.0825 = 2.2045.
			name: "increasing", y: []float64{1, 2, 3, 4, 5}, z: 9 / math.Sqrt(300.0/18), p: 0.027486,
		},
		{
			// 8 concordant − 2 discordant: S = 6, z = 5/4.0825 = 1.2247.
			name: "mixed", y: []float64{1, 3, 2, 5, 4}, z: 5 / math.Sqrt(300.0/18), p: 0.220671,
		},
		{
			name: "decreasing", y: []float64{5, 4, 3, 2, 1}, z: -9 / math.Sqrt(300.0/18), p: 0.027486,
		},
		{
			// Ties: S = 5, Var S = (4·3·13 − 2·1·9)/18 = 7.6667, z = 4/2.7689.
			name: "ties", y: []float64{1, 2, 2, 3}, z: 4 / math.Sqrt(138.0/18), p: 0.148561,
		},
		{name: "constant", y: []float64{7, 7, 7, 7}, z: 0, p: 1},
		{name: "too short", y: []float64{1, 2}, z: 0, p: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, p := MannKendall(tt.y)
			assert.InDelta(t, tt.z, z, 1e-6)
			assert.InDelta(t, tt.p, p, 1e-6)
		})
	}
}

// TestMannKendallS checks the O(n log n) S against the O(n²) definition.
func TestMannKendallS(t *testing.T) {
	r := seeded(9)
	for trial := 0; trial < 20; trial++ {
		y := make([]float64, 2+r.IntN(200))
		for i := range y {
			y[i] = float64(r.IntN(20)) // many ties
		}
		var want float64
		for i := range y {
			for j := i + 1; j < len(y); j++ {
				switch {
				case y[j] > y[i]:
					want++
				case y[j] < y[i]:
					want--
				}
			}
		}
		s, _ := mkS(y)
		if len(y) < 3 {
			want = 0
		}
		assert.Equal(t, want, s)
	}
}

// TestMannKendallCorrected: on trendless AR(1) noise the plain test rejects
// far more often than its level; the corrected test stays near it, and
// still detects a real trend.
func TestMannKendallCorrected(t *testing.T) {
	const reps, n = 200, 300
	r := seeded(10)
	var plain, hr int
	for rep := 0; rep < reps; rep++ {
		y := ar1(r, n, 0.7, 1)
		if _, p := MannKendall(y); p < 0.05 {
			plain++
		}
		if _, p, _ := MannKendallCorrected(y); p < 0.05 {
			hr++
		}
	}
	t.Logf("rejections at 5%% on trendless AR(1) φ=0.7: plain %d/%d, corrected %d/%d", plain, reps, hr, reps)
	assert.Greater(t, plain, reps/4)
	assert.Less(t, hr, reps*10/100)

	y := synth(n, line(100), ar1(r, n, 0.7, 1000)).Y
	z, p, infl := MannKendallCorrected(y)
	assert.Greater(t, z, 0.0)
	assert.Less(t, p, 1e-3)
	assert.Greater(t, infl, 1.0)

	// White noise needs (almost) no correction.
	_, _, infl = MannKendallCorrected(ar1(r, n, 0, 1))
	assert.Less(t, infl, 1.5)
}

func TestAutocorr(t *testing.T) {
	// x = [1, 2, 3, 4]: centred [−1.5, −0.5, 0.5, 1.5], c₀ = 5,
	// c₁ = 0.75 − 0.25 + 0.75 = 1.25, c₂ = −0.75 − 0.75 = −1.5, c₃ = −2.25.
	got := autocorr([]float64{1, 2, 3, 4})
	want := []float64{1, 0.25, -0.3, -0.45}
	for i := range want {
		assert.InDelta(t, want[i], got[i], 1e-12)
	}
	assert.Equal(t, []float64{1, 0, 0}, autocorr([]float64{2, 2, 2}))
	assert.False(t, math.IsNaN(autocorr([]float64{5})[0]))
}

func TestRanks(t *testing.T) {
	assert.Equal(t, []float64{2, 3.5, 1, 3.5}, ranks([]float64{10, 20, 5, 20}))
}
