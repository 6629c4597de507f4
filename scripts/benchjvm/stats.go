package main

import (
	"fmt"
	"os"
	"sort"
)

// summaryStats is a set of rounds' median and range; n is 0 for no rounds.
type summaryStats struct {
	n                int
	median, min, max float64
}

// spread returns x's median, min and max, without changing x.
func spread(x []float64) summaryStats {
	if len(x) == 0 {
		return summaryStats{}
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return summaryStats{n: len(s), median: m, min: s[0], max: s[len(s)-1]}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchjvm:", err)
	os.Exit(1)
}
