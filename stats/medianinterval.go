package stats

import (
	"math"
	"slices"
)

// MedianInterval is a distribution-free interval for the median of x at confidence conf (e.g. 0.95): the order
// statistics x(j) and x(n−j+1), j the largest rank with P(Binomial(n, ½) < j) ≤ (1−conf)/2, so that the interval
// covers the median with probability ≥ conf whatever x's distribution, for independent draws. ok is false when n
// is too small for any such interval (n < 6 at 95%).
func MedianInterval(x []float64, conf float64) (lo, hi float64, ok bool) {
	n := len(x)
	a := (1 - conf) / 2
	lg := func(k int) float64 { v, _ := math.Lgamma(float64(k) + 1); return v }
	cdf, j := 0.0, 0
	for k := 0; k < n; k++ {
		cdf += math.Exp(lg(n) - lg(k) - lg(n-k) - float64(n)*math.Ln2)
		if cdf > a {
			break
		}
		j = k + 1
	}
	if j == 0 {
		return 0, 0, false
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return s[j-1], s[n-j], true
}
