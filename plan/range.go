package plan

import (
	"math"

	"github.com/rocksleak/rocksleak/stats"
)

// Range is a low / expected / high triple in one unit.
type Range struct {
	Low      float64 `json:"low"`
	Expected float64 `json:"expected"`
	High     float64 `json:"high"`
}

func (r Range) scale(k float64) Range { return Range{r.Low * k, r.Expected * k, r.High * k} }
func (r Range) add(o Range) Range {
	return Range{r.Low + o.Low, r.Expected + o.Expected, r.High + o.High}
}

// less is r with v taken from each end, each clamped at 0.
func (r Range) less(v float64) Range {
	return Range{math.Max(0, r.Low-v), math.Max(0, r.Expected-v), math.Max(0, r.High-v)}
}

// clamped is an estimate's low / expected / high, each clamped at 0.
func clamped(e stats.Estimate) Range {
	return Range{math.Max(0, e.Low), math.Max(0, e.Value), math.Max(0, e.High)}
}
