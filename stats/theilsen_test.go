package stats

import (
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTheilSen(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{
			// The 10 pairwise slopes, sorted: −1.5, −0.7, 0.0833, 0.15,
			// 0.3125, 0.475, 0.875, 0.9167, 1, 2.45; median (0.3125+0.475)/2.
			name: "textbook five points",
			x:    []float64{1, 2, 3, 4, 5},
			y:    []float64{1, 2, 1.3, 3.75, 2.25},
			want: 0.39375,
		},
		{
			// Slopes 1, 2, 3 (pairs 1–2, 2–3, 1–3 give 1, 3, 2): median 2.
			name: "odd count",
			x:    []float64{0, 1, 2},
			y:    []float64{0, 1, 4},
			want: 2,
		},
		{
			// x ties are skipped: only (0→2) = 3 and (1→2) = 2 count.
			name: "tied x",
			x:    []float64{1, 1, 2},
			y:    []float64{0, 1, 3},
			want: 2.5,
		},
		{
			// One wild outlier does not move the slope of an exact line:
			// 6 of 15 slopes involve it, the median is still 11000.
			name: "outlier",
			x:    []float64{1, 2, 3, 4, 5, 6},
			y:    []float64{11000, 22000, 33000, 9e9, 55000, 66000},
			want: 11000,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, TheilSen(tt.x, tt.y), 1e-12)
		})
	}
	assert.True(t, math.IsNaN(TheilSen([]float64{1, 1}, []float64{1, 2})), "no distinct x")
	assert.True(t, math.IsNaN(TheilSen([]float64{1, 2}, []float64{1})), "length mismatch")
}

// TestTheilSenLarge: n = 20,000 is thinned to 2,000 points and still
// recovers the slope of a noisy line.
func TestTheilSenLarge(t *testing.T) {
	n := 20000
	in := synth(n, line(11000), ar1(seeded(3), n, 0.7, 20000))
	assert.InEpsilon(t, 11000, TheilSen(in.Lifecycles, in.Y), 0.01)
}

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1}, 2},
		{[]float64{5, 1, 4, 2, 3}, 3},
		{[]float64{2, 2, 2, 1, 9, 9}, 2},
		{[]float64{6, 5, 4, 3, 2, 1, 0, -1}, 2.5},
	} {
		assert.Equal(t, tt.want, median(append([]float64(nil), tt.v...)), "%v", tt.v)
	}
	// Against a sort on many ties.
	r := seeded(5)
	for trial := 0; trial < 50; trial++ {
		v := make([]float64, 1+r.IntN(300))
		for i := range v {
			v[i] = float64(r.IntN(7))
		}
		s := append([]float64(nil), v...)
		sort.Float64s(s)
		want := s[len(s)/2]
		if len(s)%2 == 0 {
			want = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
		assert.Equal(t, want, median(v))
	}
}

// TestMedianKeepsItsArgument: odd and even counts (the mean of the two middle values), empty
// is NaN, and the argument is left in its order.
func TestMedianKeepsItsArgument(t *testing.T) {
	x := []float64{5, 1, 4, 2}
	assert.Equal(t, 3.0, Median(x))
	assert.Equal(t, []float64{5, 1, 4, 2}, x)
	assert.Equal(t, 2.0, Median([]float64{3, 1, 2}))
	assert.Equal(t, 7.0, Median([]float64{7}))
	assert.True(t, math.IsNaN(Median(nil)))
}
