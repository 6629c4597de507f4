package main

import (
	"math"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/stats/simulate"
)

// TestWilsonInterval: the endpoints are the two roots of the score
// equation (p − π)² = z²·π(1 − π)/n, and a known answer: 50 of 100 gives
// [0.404, 0.596].
func TestWilsonInterval(t *testing.T) {
	const z = 1.959964
	for _, c := range []struct {
		p float64
		n int
	}{{0.5, 100}, {0.894, 2000}, {0.99, 400}, {0, 400}, {1, 40}} {
		lo, hi := wilsonInterval(c.p, c.n)
		assert.LessOrEqual(t, lo, c.p, "%+v", c)
		assert.GreaterOrEqual(t, hi, c.p, "%+v", c)
		for _, pi := range []float64{lo, hi} {
			assert.InDelta(t, z*z*pi*(1-pi)/float64(c.n), (c.p-pi)*(c.p-pi), 1e-12, "%+v: π = %v", c, pi)
		}
	}
	lo, hi := wilsonInterval(0.5, 100)
	assert.InDelta(t, 0.404, lo, 0.0005)
	assert.InDelta(t, 0.596, hi, 0.0005)
	assert.Equal(t, "—", wilson(math.NaN(), 10))
}

// TestSelectCases: the README's -case expression picks exactly its two
// cells; no expression keeps every case; one that matches nothing keeps none
// (main then exits 2).
func TestSelectCases(t *testing.T) {
	all := simulate.Suite(caseSizes)
	var names []string
	for _, c := range selectCases(all, regexp.MustCompile(`random walk \+ noise, flat, n=(100|300)$`)) {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"random walk + noise, flat, n=100", "random walk + noise, flat, n=300"}, names)
	assert.Len(t, selectCases(all, nil), len(all))
	assert.Empty(t, selectCases(all, regexp.MustCompile(`no such case`)))
}

// TestFrontierPairs: a -frontier -case expression keeps whole rows of the
// frontier tables (all walk shares of a stationary model, walk and n), so
// that frontierGrid's rows stay whole: the white noise row at n = 300 is its
// five pairs; the bursty walk's rows are not the random walk's; no
// expression keeps every pair; one that matches nothing keeps none (main
// then exits 2).
func TestFrontierPairs(t *testing.T) {
	got := frontierPairs(regexp.MustCompile(`^white noise / random walk, n=300$`))
	if assert.Len(t, got, len(simulate.FrontierShares)) {
		for i, p := range got {
			assert.Equal(t, "white noise", p.Stationary)
			assert.Equal(t, 300, p.N)
			assert.False(t, p.Bursty)
			assert.Equal(t, simulate.FrontierShares[i], p.Share)
		}
	}
	bursty := frontierPairs(regexp.MustCompile(`bursty walk`))
	assert.Len(t, bursty, len(caseSizes)*len(simulate.FrontierShares))
	for _, p := range bursty {
		assert.True(t, p.Bursty, "%+v", p)
	}
	assert.Len(t, frontierPairs(nil), len(simulate.FrontierSuite(caseSizes)))
	assert.Empty(t, frontierPairs(regexp.MustCompile(`no such row`)))
}
