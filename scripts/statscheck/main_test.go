package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
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
