package stats

import "math"

// detectStep implements step 1 of FitSignal on at most ~400 batch means.
func detectStep(y, L []float64) *StepInfo {
	n := len(y)
	b := (n + 399) / 400
	m := n / b
	if m < 20 {
		return nil
	}
	zy, zL := make([]float64, m), make([]float64, m)
	for j := 0; j < m; j++ {
		zy[j] = mean(y[j*b : (j+1)*b])
		zL[j] = mean(L[j*b : (j+1)*b])
	}
	// Residual maker for [1, L] (or [1] when L is constant).
	mL := mean(zL)
	var sLL float64
	for _, v := range zL {
		sLL += (v - mL) * (v - mL)
	}
	resid := func(v []float64, out []float64) {
		mv := mean(v)
		var sLv float64
		if sLL > 0 {
			for i := range v {
				sLv += (zL[i] - mL) * (v[i] - mv)
			}
			sLv /= sLL
		}
		for i := range v {
			out[i] = v[i] - mv - sLv*(zL[i]-mL)
		}
	}
	ry := make([]float64, m)
	resid(zy, ry)
	var sseLin float64
	for _, v := range ry {
		sseLin += v * v
	}
	if sseLin == 0 {
		return nil
	}
	// extra returns the SSE after adding regressor v to [1, L], and its
	// coefficient.
	d, rd := make([]float64, m), make([]float64, m)
	extra := func() (sse, coef float64) {
		resid(d, rd)
		var sdy, sdd float64
		for i := range rd {
			sdy += rd[i] * ry[i]
			sdd += rd[i] * rd[i]
		}
		if sdd <= 1e-12*float64(m) {
			return sseLin, 0
		}
		return sseLin - sdy*sdy/sdd, sdy / sdd
	}
	minSeg := max(2, m/20)
	bestStep, bestHinge := math.Inf(1), math.Inf(1)
	bestK, bestS := -1, 0.0
	for k := minSeg; k <= m-minSeg; k++ {
		for i := range d {
			d[i] = 0
			if i >= k {
				d[i] = 1
			}
		}
		if sse, s := extra(); sse < bestStep {
			bestStep, bestK, bestS = sse, k, s
		}
		for i := range d {
			d[i] = math.Max(0, zL[i]-zL[k])
		}
		if sse, _ := extra(); sse < bestHinge {
			bestHinge = sse
		}
	}
	if bestK < 0 || bestStep > 0.25*sseLin || bestStep > 0.25*bestHinge {
		return nil
	}
	// Slope of the step model: regress y − s·1[t ≥ k] on L.
	var slope float64
	if sLL > 0 {
		var s float64
		for i := range zy {
			v := zy[i]
			if i >= bestK {
				v -= bestS
			}
			s += (zL[i] - mL) * v
		}
		slope = s / sLL
	}
	if math.Abs(bestS) <= math.Abs(slope)*(zL[m-1]-zL[0]) {
		return nil
	}
	return &StepInfo{Index: bestK * b, Size: bestS}
}
