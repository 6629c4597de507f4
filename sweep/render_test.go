package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSpreadRatio(t *testing.T) {
	for _, tc := range []struct {
		name   string
		slopes []float64
		ses    []float64
		want   float64
		ok     bool
	}{
		// sd of {1, 2, 3} is 1; median SE 0.5 → 2.
		{"spread twice the SE", []float64{1, 2, 3}, []float64{0.4, 0.5, 0.9}, 2, true},
		{"honest", []float64{10, 12, 14}, []float64{2, 2}, 1, true},
		{"too few seeds", []float64{1, 2}, []float64{1, 1}, 0, false},
		{"no SE", []float64{1, 2, 3}, nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := spreadRatio(tc.slopes, tc.ses)
			assert.Equal(t, tc.ok, ok)
			assert.InDelta(t, tc.want, got, 1e-12)
		})
	}
}

func TestReplicateSpread(t *testing.T) {
	// Pairs differing by 2 and 0: Σ(a−b)² = 4 over 2·2 → SD 1; SEs 1,1,3,5 → median 2.
	sd, se := replicateSpread([]replicatePair{{first: 10, second: 12, seFirst: 1, seSecond: 3}, {first: 5, second: 5, seFirst: 1, seSecond: 5}})
	assert.InDelta(t, 1.0, sd, 1e-12)
	assert.InDelta(t, 2.0, se, 1e-12)
	// Identical runs: no run-to-run spread.
	sd, _ = replicateSpread([]replicatePair{{first: 7, second: 7, seFirst: 1, seSecond: 1}})
	assert.Zero(t, sd)
	// The cells: run-to-run SD 1, across the first runs {10, 5} SD 3.54, median SE 2.
	assert.Equal(t, "1 B\t4 B\t2 B\t0.50, 1.77", spreadCells([]replicatePair{{first: 10, second: 12, seFirst: 1, seSecond: 3}, {first: 5, second: 5, seFirst: 1, seSecond: 5}}))
}
