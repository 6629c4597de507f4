package stats

import "math"

// MSER5 returns the number of leading samples of y to discard as warm-up,
// by the MSER-5 rule (White, 1997; White, Cobb and Spratt, 2000): y is
// reduced to means of consecutive batches of 5 (a trailing partial batch is
// dropped), and the cut d (in batches) minimises
//
//	MSER(d) = Σ_{j>d} (Zⱼ − Z̄_d)² / (m − d)²
//
// over d = 0 … ⌊m/2⌋, m being the number of batches; ties go to the smaller
// cut. The result is 5·d samples. Searching only the first half follows the
// usual practice (a minimum further out says the run is too short to tell,
// not where warm-up ends). Fewer than 10 samples give 0.
func MSER5(y []float64) (cut int) {
	return MSER(y, 5, 0.5)
}

// MSER is MSER5 with a general batch size (≥ 1) and a limit on the share of
// y the cut may remove (in [0, 1]). It returns a cut in samples, a multiple
// of batch, at most maxFraction·len(y).
func MSER(y []float64, batch int, maxFraction float64) (cut int) {
	if batch < 1 {
		batch = 1
	}
	m := len(y) / batch
	if m < 2 {
		return 0
	}
	z := make([]float64, m)
	for j := range z {
		var s float64
		for _, v := range y[j*batch : (j+1)*batch] {
			s += v
		}
		z[j] = s / float64(batch)
	}
	maxD := int(math.Floor(maxFraction * float64(len(y)) / float64(batch)))
	maxD = min(maxD, m/2, m-2)
	// Suffix sums make each MSER(d) O(1).
	sum := make([]float64, m+1)
	sq := make([]float64, m+1)
	for j := m - 1; j >= 0; j-- {
		sum[j] = sum[j+1] + z[j]
		sq[j] = sq[j+1] + z[j]*z[j]
	}
	best, bestD := math.Inf(1), 0
	for d := 0; d <= maxD; d++ {
		k := float64(m - d)
		ss := sq[d] - sum[d]*sum[d]/k
		if ss < 0 {
			ss = 0
		}
		if v := ss / (k * k); v < best*(1-1e-12) {
			best, bestD = v, d
		}
	}
	return bestD * batch
}
