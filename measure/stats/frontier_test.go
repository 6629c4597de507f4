package stats

import (
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/internal/montecarlo"
)

// frontierPoint is one threshold c of TestCoverageGoalFrontier's rule and
// the coverage it gives under the stationary model and under the model with
// the random walk.
type frontierPoint struct{ c, stationary, walk float64 }

// coverageFrontier runs TestCoverageGoalFrontier's rule over reps series
// of each of its two models (stationary AR(1) φ with innovations of 30 KB,
// and the same plus a random walk of 3 KB steps, r ≈ 0.01, whose steps are
// white or, when bursty is set, AR(1) with the same φ as in RegressRobust's
// integrated family; n samples, two lifecycles apart, no slope) at every
// threshold c that changes a choice,
// and returns the coverage pairs, c ascending, and, when tool is set, the
// coverage of RegressRobust's own 95% interval on the same series (NaN
// otherwise).
func coverageFrontier(t *testing.T, phi float64, bursty bool, n, reps int, seed uint64, tool bool) (pts []frontierPoint, toolStationary, toolWalk float64) {
	t.Helper()
	const innov, step = 30e3, 3e3
	r := seeded(seed)
	L, X := twoLifecyclesPerSample(n)
	z := [][]float64{differences(L)}
	g := newGLS(n-2, 1)
	df := float64(n - 2 - 1 - 2) // RegressRobust's M − k − 2
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	type draw struct {
		lambda                 float64 // ℓ(φ, 0.01) − ℓ(φ, 0)
		coverNarrow, coverWide bool
		walk                   bool
	}
	var draws []draw
	var toolCov [2]int
	for _, walk := range []bool{false, true} {
		for range reps {
			y := ar1(r, n, phi, innov)
			if walk {
				var w []float64
				if bursty {
					w = integrated(ar1(r, n, phi, step))
				} else {
					w = randomWalk(r, n, step)
				}
				for i := range y {
					y[i] += w[i]
				}
			}
			d := differences(y)
			covered := func(rw float64) (bool, float64) {
				ll, ok := g.fitFamily(d, z, phi, rw, bursty && rw > 0)
				require.True(t, ok)
				return math.Abs(g.beta[0]) <= tq*math.Sqrt(g.ssr/df*g.inv.At(0, 0)), ll
			}
			narrow, ll0 := covered(0)
			wide, ll1 := covered(0.01)
			draws = append(draws, draw{ll1 - ll0, narrow, wide, walk})
			if tool {
				reg, err := RegressRobust(X, y, 0.95)
				require.NoError(t, err)
				if reg.Low[1] <= 0 && 0 <= reg.High[1] {
					toolCov[b2i(walk)]++
				}
			}
		}
	}
	sort.Slice(draws, func(i, j int) bool { return draws[i].lambda < draws[j].lambda })
	// At c = −∞ every series takes the wide interval; raising c past each
	// draw's Λ moves that draw to the narrow one.
	var cov [2]int
	for _, d := range draws {
		if d.coverWide {
			cov[b2i(d.walk)]++
		}
	}
	share := func(k int) float64 { return float64(k) / float64(reps) }
	pts = append(pts, frontierPoint{math.Inf(-1), share(cov[0]), share(cov[1])})
	for _, d := range draws {
		if d.coverWide {
			cov[b2i(d.walk)]--
		}
		if d.coverNarrow {
			cov[b2i(d.walk)]++
		}
		pts = append(pts, frontierPoint{d.lambda, share(cov[0]), share(cov[1])})
	}
	if !tool {
		return pts, math.NaN(), math.NaN()
	}
	return pts, share(toolCov[0]), share(toolCov[1])
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestCoverageGoalFrontier measures a limit of issue 11's coverage goal
// (every case's 95% interval covering 0.90–0.98): two of make stats-check's
// cases, "white noise, flat" and "random walk + noise, flat" (native heap:
// white noise of 30 KB plus a random walk of 3 KB steps, a random walk share
// of the innovation variance r ≈ 0.01), are so alike at n = 100 that no
// interval chosen from the data between the two models' own can cover both
// within it, even knowing that one of the two is the truth.
//
// The rule: fit the GLS slope under each of the two models (φ known, scale
// profiled) and take the random-walk model's 95% interval when the
// log-likelihood ratio Λ = ℓ(r = 0.01) − ℓ(r = 0) is at least c, the
// stationary model's otherwise. Λ is the Neyman–Pearson statistic between
// the two (it is invariant to the slope and intercept), so no other way of
// choosing between the two intervals tells them apart better. Every c is
// tried. At n = 100 with φ = 0: wherever white noise is covered ≤ 0.98, the
// random walk plus noise is covered < 0.90 (about 0.83), and wherever the
// latter is ≥ 0.90, white noise is covered > 0.98 (about 0.99). The
// control, n = 300, where the two are told apart, has thresholds that meet
// both. Logged too: the native heap's kind of noise, AR(1) φ = 0.75, with
// and without the same random walk, at n = 100 (thresholds that meet both
// exist) and n = 300 (none do); and AR(1) φ = 0.7 with and without a walk of
// the same share whose steps are AR(1) φ = 0.7 (the integrated family's
// model), at n = 40 and 300 (they exist) and n = 100 (none do). RegressRobust (which considers every model of its grid, not two)
// takes the honest side: ≥ 0.90 on the random walk plus noise, which costs
// white noise its upper bound.
//
// Meeting 0.98 on white noise at n = 100 would therefore mean covering a
// random walk plus noise that the data cannot tell from it below 0.90 (an
// interval narrower than honest), which is why the tool does not try.
func TestCoverageGoalFrontier(t *testing.T) {
	montecarlo.SkipInShort(t)
	const reps = 2000
	tests := []struct {
		phi      float64
		bursty   bool
		n        int
		feasible bool
		assert   bool
	}{
		{phi: 0, n: 100, feasible: false, assert: true},
		{phi: 0, n: 300, feasible: true, assert: true},
		{phi: 0.75, n: 100},
		{phi: 0.75, n: 300},
		{phi: 0.7, bursty: true, n: 40},
		{phi: 0.7, bursty: true, n: 100},
		{phi: 0.7, bursty: true, n: 300},
	}
	for _, tt := range tests {
		pts, toolS, toolW := coverageFrontier(t, tt.phi, tt.bursty, tt.n, reps, 17, tt.assert && !tt.feasible)
		bestWalk, bestStationary := 0.0, 1.0 // best walk coverage with stationary ≤ 0.98, and the converse
		feasible := false
		for _, p := range pts {
			if p.stationary <= 0.98 {
				bestWalk = math.Max(bestWalk, p.walk)
			}
			if p.walk >= 0.90 {
				bestStationary = math.Min(bestStationary, p.stationary)
			}
			if p.stationary >= 0.90 && p.stationary <= 0.98 && p.walk >= 0.90 && p.walk <= 0.98 {
				feasible = true
			}
		}
		walk := "random walk"
		if tt.bursty {
			walk = "bursty walk"
		}
		t.Logf("AR(1) φ=%.2f vs the same + %s r≈0.01, n=%d, %d series each: with the stationary model covered ≤ 0.98, "+
			"the walk's at most %.3f; with the walk's ≥ 0.90, the stationary at least %.3f; both in 0.90–0.98: %v",
			tt.phi, walk, tt.n, reps, bestWalk, bestStationary, feasible)
		if !math.IsNaN(toolW) {
			t.Logf("  RegressRobust's own 95%% interval on the same series: %.3f and %.3f", toolS, toolW)
		}
		if !tt.assert {
			continue
		}
		assert.Equal(t, tt.feasible, feasible, "φ=%.2f n=%d", tt.phi, tt.n)
		if !tt.feasible {
			assert.Less(t, bestWalk, 0.90)
			assert.Greater(t, bestStationary, 0.98)
			assert.GreaterOrEqual(t, toolW, 0.90, "RegressRobust should cover the random walk plus noise")
		}
	}
}
