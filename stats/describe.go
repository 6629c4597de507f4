package stats

import "slices"

// Median is the median of x: its middle value, or the mean of its two middle
// values when len(x) is even; NaN when x is empty. x is not changed. It is
// the one median of the project's descriptive statistics (standard
// deviations come from gonum's stat.MeanStdDev and stat.StdDev).
func Median(x []float64) float64 { return median(slices.Clone(x)) }
