package stats

import "math"

// theilSenMaxPoints bounds the points TheilSen uses: above it the data are
// thinned evenly, so the pairwise slopes number at most ~2·10⁶.
const theilSenMaxPoints = 2000

// TheilSen returns the Theil–Sen slope of y against x: the median of the
// slopes (yⱼ − yᵢ)/(xⱼ − xᵢ) over all pairs i < j with xᵢ ≠ xⱼ (Sen, 1968),
// in units of y per unit of x. It is robust to up to ~29% outliers.
//
// For more than 2,000 points, TheilSen uses 2,000 points evenly spaced in
// sample order (a deterministic thinning; for the smooth, densely sampled
// series of this package the loss is negligible), so it runs in well under a
// second for any n. It returns NaN if x and y differ in length or fewer than
// two distinct x values are present.
func TheilSen(x, y []float64) (slope float64) {
	n := len(x)
	if n != len(y) || n < 2 {
		return math.NaN()
	}
	idx := thin(n, theilSenMaxPoints)
	slopes := make([]float64, 0, len(idx)*(len(idx)-1)/2)
	for a := 0; a < len(idx); a++ {
		i := idx[a]
		for _, j := range idx[a+1:] {
			if dx := x[j] - x[i]; dx != 0 {
				slopes = append(slopes, (y[j]-y[i])/dx)
			}
		}
	}
	return median(slopes)
}

// thin returns min(n, m) indices spread evenly over 0..n−1, including both
// ends.
func thin(n, m int) []int {
	if n <= m {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, m)
	for i := range idx {
		idx[i] = int(math.Round(float64(i) * float64(n-1) / float64(m-1)))
	}
	return idx
}

// median returns the median of v (reordering v), or NaN if v is empty.
func median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	hi := selectK(v, n/2)
	if n%2 == 1 {
		return hi
	}
	// After selection, v[:n/2] holds the n/2 smallest values.
	lo := v[0]
	for _, x := range v[1 : n/2] {
		if x > lo {
			lo = x
		}
	}
	return (lo + hi) / 2
}

// selectK partially sorts v so that v[k] is the k-th smallest (0-based),
// everything before it ≤ v[k] and everything after ≥ v[k], and returns v[k].
// Hoare-style quickselect with median-of-three pivots.
func selectK(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
