package stats

import "math"

// gridPoint is one error model of RegressRobust's grid that the GLS could
// fit, with its profile log-likelihood ll and its innovation scale
// s2 = σ̂² = SSR/df under that model.
type gridPoint struct {
	errorModel
	ll float64
	s2 float64 // the innovation scale σ̂² = SSR/df under this model
}

// searchGrid fits g to (d, z) under each of models in turn and returns the
// points that fitted, in that order, with best the index of the likeliest
// and est that of the likeliest of the stationary family (each −1 when
// there is none). g is left at the last model fitted.
func searchGrid(g *gls, d []float64, z [][]float64, models []errorModel, df float64) (pts []gridPoint, best, est int) {
	best, est = -1, -1
	for _, m := range models {
		ll, ok := g.fitFamily(d, z, m.phi, m.r, m.integ)
		if !ok {
			continue
		}
		pts = append(pts, gridPoint{m, ll, g.ssr / df})
		if best < 0 || ll > pts[best].ll {
			best = len(pts) - 1
		}
		if !m.integ && (est < 0 || ll > pts[est].ll) {
			est = len(pts) - 1
		}
	}
	return pts, best, est
}

// seScales returns, per kept column, the factor on the standard error of
// g's current fit (the estimate, under error model fit) that makes it the
// largest over the likelihood-ratio confidence region of (φ, r) of the
// estimate's standard error under that error model, so that a near-unit-root
// series the likelihood cannot tell from a random walk gets the random
// walk's error (likeliest: the likeliest model's alone). rwPlausible reports
// a random walk (r ≥ 0.5 or φ ≥ 0.995) within the region, whatever
// likeliest says. pts and best are searchGrid's.
func seScales(g *gls, pts []gridPoint, best int, fit errorModel, df float64, likeliest bool) (scale []float64, rwPlausible bool) {
	var region []gridPoint
	for _, p := range pts {
		if pts[best].ll-p.ll <= regionCutoff(p.errorModel) {
			region = append(region, p)
			if p.r >= 0.5 || p.phi >= 0.995 {
				rwPlausible = true
			}
		}
	}
	if likeliest {
		region = []gridPoint{pts[best]}
	}
	scale = make([]float64, g.k)
	acf := estimatorAutocorr(g, fit)
	s2est := g.ssr / df
	for a := range scale {
		base := math.Sqrt(math.Max(s2est*g.inv.At(a, a), 0))
		maxSE := base
		for _, p := range region {
			v := p.s2 * estimatorVariance(acf[a], p.errorModel)
			maxSE = math.Max(maxSE, math.Sqrt(math.Max(v, 0)))
		}
		scale[a] = 1
		if base > 0 {
			scale[a] = maxSE / base
		}
	}
	return scale, rwPlausible
}

// applyBatches sets r's Method and gives r, a robust fit with BatchSE and
// BatchDF set, the batch-means interval through useBatches. Calibrated
// (RegressCalibrated): it replaces each column's own interval, except on a
// kept column (keep) whose robust standard error the region widened (its
// scale, per kept column, over 1+1e-9), where it is taken only if wider.
// Otherwise (RegressRobustBatch) it is taken wherever it is wider.
func applyBatches(r *Regression, confidence float64, keep []int, scale []float64, calibrated bool) {
	if !calibrated {
		r.Method = IntervalRobustBatch
		useBatches(r, confidence, nil)
		return
	}
	r.Method = IntervalCalibrated
	widen := make([]bool, len(r.SE))
	for a, i := range keep {
		widen[i] = scale[a] > 1+1e-9
	}
	useBatches(r, confidence, widen)
}
