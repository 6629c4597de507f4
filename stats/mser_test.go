package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMSER5(t *testing.T) {
	// alt returns k samples alternating +1, −1, so that 5-sample batch
	// means alternate +0.2, −0.2.
	alt := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = 1 - 2*float64(i%2)
		}
		return v
	}
	rep := func(x float64, k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = x
		}
		return v
	}
	tests := []struct {
		name string
		y    []float64
		want int
	}{
		{
			// Batch means Z = [4, 0, 1, −1], m = 4, d ≤ 2:
			// MSER(0) = 14/16, MSER(1) = 2/9, MSER(2) = 2/4 → d = 1.
			name: "hand-computed",
			y:    []float64{4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1},
			want: 5,
		},
		{
			// 50 samples at 100, then ±1: every d ≥ 10 leaves batch means
			// ±0.2, whose MSER 0.04/(m−d) is smallest at d = 10.
			name: "obvious initial transient",
			y:    append(rep(100, 50), alt(200)...),
			want: 50,
		},
		{name: "stationary", y: alt(200), want: 0},
		{name: "constant", y: rep(3, 100), want: 0},
		{name: "too short", y: []float64{9, 9, 0, 0, 0, 0, 0, 0, 0}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, MSER5(tt.y))
		})
	}
}

func TestMSERLimit(t *testing.T) {
	// 30 samples at 50, then ±1.
	y := make([]float64, 100)
	for i := range y {
		y[i] = 1 - 2*float64(i%2)
		if i < 30 {
			y[i] = 50
		}
	}
	assert.Equal(t, 30, MSER(y, 5, 0.5))
	assert.Equal(t, 20, MSER(y, 5, 0.2), "cut capped at 20% of 100 samples")
	assert.Equal(t, 30, MSER(y, 1, 0.5), "batch size 1")
	assert.Equal(t, 0, MSER(y, 5, 0), "no cut allowed")
}
