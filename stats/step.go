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
	zy, zL := batchMeans(y, b, m), batchMeans(L, b, m)
	r := newLineResid(zL)
	ry := make([]float64, m)
	r.resid(zy, ry)
	var sseLin float64
	for _, v := range ry {
		sseLin += v * v
	}
	if sseLin == 0 {
		return nil
	}
	bestStep, bestHinge, bestK, bestS := r.bestSplit(ry, sseLin)
	if bestK < 0 || bestStep > 0.25*sseLin || bestStep > 0.25*bestHinge {
		return nil
	}
	slope := r.slopeAfterStep(zy, bestK, bestS)
	if math.Abs(bestS) <= math.Abs(slope)*(zL[m-1]-zL[0]) {
		return nil
	}
	return &StepInfo{Index: bestK * b, Size: bestS}
}

// batchMeans returns the means of v's first m batches of b samples each.
func batchMeans(v []float64, b, m int) []float64 {
	z := make([]float64, m)
	for j := 0; j < m; j++ {
		z[j] = mean(v[j*b : (j+1)*b])
	}
	return z
}

// lineResid is the residual maker for [1, L] (or [1] when L is constant) on
// L's batch means zL: their mean mL and centred sum of squares sLL.
type lineResid struct {
	zL      []float64
	mL, sLL float64
}

func newLineResid(zL []float64) lineResid {
	mL := mean(zL)
	var sLL float64
	for _, v := range zL {
		sLL += (v - mL) * (v - mL)
	}
	return lineResid{zL: zL, mL: mL, sLL: sLL}
}

// resid writes into out v's residuals from its least-squares fit on
// [1, L] (on [1] when L is constant); out has v's length.
func (r lineResid) resid(v []float64, out []float64) {
	mv := mean(v)
	var sLv float64
	if r.sLL > 0 {
		for i := range v {
			sLv += (r.zL[i] - r.mL) * (v[i] - mv)
		}
		sLv /= r.sLL
	}
	for i := range v {
		out[i] = v[i] - mv - sLv*(r.zL[i]-r.mL)
	}
}

// bestSplit searches every split k leaving at least max(2, m/20) batch
// means on each side, given ry (y's residuals from [1, L]) and their SSE
// sseLin. It returns the least SSE of [1, L] plus a step 1[t ≥ k]
// (bestStep, at split bestK, with the step's coefficient bestS; bestK is −1
// when no split beats +Inf) and the least SSE of [1, L] plus a hinge
// max(0, L − L[k]) (bestHinge).
func (r lineResid) bestSplit(ry []float64, sseLin float64) (bestStep, bestHinge float64, bestK int, bestS float64) {
	m := len(ry)
	// extra returns the SSE after adding regressor d to [1, L], and its
	// coefficient.
	d, rd := make([]float64, m), make([]float64, m)
	extra := func() (sse, coef float64) {
		r.resid(d, rd)
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
	bestStep, bestHinge = math.Inf(1), math.Inf(1)
	bestK, bestS = -1, 0.0
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
			d[i] = math.Max(0, r.zL[i]-r.zL[k])
		}
		if sse, _ := extra(); sse < bestHinge {
			bestHinge = sse
		}
	}
	return bestStep, bestHinge, bestK, bestS
}

// slopeAfterStep is the slope of the step model: the regression of
// zy − s·1[t ≥ k] on L (0 when L is constant).
func (r lineResid) slopeAfterStep(zy []float64, k int, s float64) float64 {
	var slope float64
	if r.sLL > 0 {
		var sum float64
		for i := range zy {
			v := zy[i]
			if i >= k {
				v -= s
			}
			sum += (r.zL[i] - r.mL) * v
		}
		slope = sum / r.sLL
	}
	return slope
}
