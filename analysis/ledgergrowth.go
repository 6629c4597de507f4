package analysis

import (
	"maps"
	"slices"

	"github.com/rocksleak/rocksleak/stats"

	"github.com/rocksleak/rocksleak/schema"
)

// LedgerGrowth is schema.LedgerGrowth: one kind whose live count keeps
// rising with lifecycles.
type LedgerGrowth = schema.LedgerGrowth

// GrowingKinds are the ledger kinds whose live count rises with lifecycles,
// sorted by kind. The samples read are those the fits read (no timer or
// start sample), in order. A kind grows when, over the later half of them
// (by index),
//
//  1. the least-squares slope of its live count on lifecycles is positive
//     and at least half its slope over the whole run (it keeps its rate, as
//     a leak of one object per event does; a count that levels off does
//     not), and
//  2. its rise across that half (the slope × the lifecycles the half spans)
//     exceeds the most it held in the run's first quarter: more than any set
//     of objects the open stores hold at one time, which a bounded kind
//     (one per open DB, two per store) reaches within the first lifecycles
//     and never rises above.
//
// Both hold for a linear count from any start (its later half rises twice
// what its first quarter reached); neither needs a threshold in objects or
// bytes. Fewer than 8 samples: none.
func GrowingKinds(all []schema.Sample) []LedgerGrowth {
	samples := fitted(all)
	n := len(samples)
	if n < 8 {
		return nil
	}
	kinds := map[string]bool{}
	for _, s := range samples {
		for k := range s.LiveNatives {
			kinds[k] = true
		}
	}
	var out []LedgerGrowth
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		L, y := make([]float64, n), make([]float64, n)
		for i, s := range samples {
			L[i], y[i] = float64(s.Lifecycles), float64(s.LiveNatives[k])
		}
		half := n / 2
		late, ok := stats.OLSSlope(L[half:], y[half:])
		if !ok || late <= 0 {
			continue
		}
		whole, _ := stats.OLSSlope(L, y)
		if late < whole/2 {
			continue
		}
		if late*(L[n-1]-L[half]) <= slices.Max(y[:max(n/4, 1)]) {
			continue
		}
		out = append(out, LedgerGrowth{Kind: k, PerLifecycle: late, LiveAtEnd: samples[n-1].LiveNatives[k]})
	}
	return out
}

// LaterHalfFits fits signals over the later half (by index) of the samples
// the fits read (no timer or start sample), as FitSamples fits the whole
// run: the rate the run measured once its early growth (warm-up, RocksDB's
// timer, the allocator's first arenas) was behind it. from is the lifecycle
// count the half starts at.
func LaterHalfFits(all []schema.Sample, signals ...string) (fits map[string]schema.SignalFit, from int64, err error) {
	samples := fitted(all)
	if len(samples) == 0 {
		return nil, 0, nil
	}
	later := samples[len(samples)/2:]
	fits, err = fitSamples(later, signals)
	return fits, later[0].Lifecycles, err
}
