package analysis

import (
	"fmt"
	"math"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// boundDecision is a verdict cacheBound re-made: the decision on the native heap outside the caches, that fit, and
// what was taken out.
type boundDecision struct {
	schema.CacheBound
	decision stats.Decision
	outside  schema.SignalFit
}

// cacheBound re-decides d when the native heap's growth above its floor is partly block caches that outlive the
// stores filling toward their capacity (Kafka's bounded-memory setter: one Cache shared by every store of the
// instance, never closed with them). Such growth is bounded by the capacity the application gave the cache, and
// an LRU cache of dead entries (a closed store's blocks) fills until it evicts them. It applies when, over the
// samples the fits read (between task lives, the stores closed):
//   - the caches were read (schema.RocksDBMemory.Caches, the JVM child of an application run) with their capacity,
//     and there were as many at every sample: caches that persist, not one more per store open (a setter that
//     builds a cache per store and never closes it gains one per open: that growth is a leak, and stays one);
//   - their usage at the last sample is below their capacity, and it rose (its interval above zero);
//   - d's native heap lies above its floor (otherwise there is nothing to take out).
//
// The verdict is then DecideSignals on the native heap less the caches' usage (with RSS as it is), its reason
// prefixed with what was taken out and how far the caches are from full. nil, nil when it does not apply.
func cacheBound(d stats.Decision, samples []schema.Sample, rss schema.SignalFit, floors schema.VerdictFloors) (*boundDecision, error) {
	if d.Verdict == stats.VerdictNoLeak || !d.Native.Valid || d.Native.Low <= floors.NativeHeap {
		return nil, nil
	}
	used := fitted(samples)
	if len(used) == 0 {
		return nil, nil
	}
	last := used[len(used)-1]
	for _, s := range used {
		if s.RocksDB.Caches != last.RocksDB.Caches {
			return nil, nil
		}
	}
	if last.RocksDB.Caches <= 0 || last.RocksDB.CachesCapacity <= 0 || last.RocksDB.CachesUsage >= last.RocksDB.CachesCapacity {
		return nil, nil
	}
	growth, err := fitTotal(used, func(s schema.Sample) float64 { return float64(s.RocksDB.CachesUsage) })
	if err != nil {
		return nil, fmt.Errorf("fitting the block caches' usage: %w", err)
	}
	if !growth.PerLifecycle.Valid || growth.PerLifecycle.Low <= 0 {
		return nil, nil
	}
	outside, err := fitTotal(used, func(s schema.Sample) float64 {
		return float64(s.CodeNativeHeap() - s.RocksDB.CachesUsage)
	})
	if err != nil {
		return nil, fmt.Errorf("fitting the native heap outside the block caches: %w", err)
	}
	sf := schema.NewSignalFit(outside, Describe(SignalNativeHeap).Unit)
	o := Decide(sf, rss, floors)
	b := &boundDecision{decision: o, outside: sf, CacheBound: schema.CacheBound{Caches: last.RocksDB.Caches,
		Usage: float64(last.RocksDB.CachesUsage), Capacity: float64(last.RocksDB.CachesCapacity),
		Growth: growth.PerLifecycle, Outside: o.Native}}
	b.FullAfter = (b.Capacity - b.Usage) / growth.PerLifecycle.Value
	b.decision.Reason = b.describe(d.Confidence) + o.Reason
	return b, nil
}

// describe is the prefix of the re-made verdict's reason: the native heap's growth, the caches' share of it and
// how full they are.
func (b *boundDecision) describe(conf float64) string {
	which, verb := "the block cache the stores share", "fills toward its capacity, which bounds it: its usage grows"
	if b.Caches > 1 {
		which = fmt.Sprintf("the %d block caches that outlive the stores", b.Caches)
		verb = "fill toward their capacity, which bounds them: their usage grows"
	}
	return fmt.Sprintf("%s %s %s, and holds %s of %s (%s; full after about %s more lifecycles at this rate); "+
		"outside it, the verdict: ", which, verb,
		stats.DescribeEstimate(b.Growth, 0), units.FormatBytes(b.Usage), units.FormatBytes(b.Capacity),
		fmt.Sprintf("%.1f%%", 100*b.Usage/b.Capacity), roundLifecycles(b.FullAfter))
}

// roundLifecycles renders n lifecycles to two significant figures: "15,000".
func roundLifecycles(n float64) string {
	if n < 100 {
		return fmt.Sprintf("%.0f", math.Ceil(n))
	}
	p := math.Pow(10, math.Floor(math.Log10(n))-1)
	v := int64(math.Round(n/p) * p)
	s := fmt.Sprintf("%d", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fitTotal fits value over samples (already the fitted ones) against lifecycles alone, with the native heap's
// options: the Total fit of a quantity in bytes.
func fitTotal(samples []schema.Sample, value func(schema.Sample) float64) (stats.Fit, error) {
	in := stats.Input{}
	for _, s := range samples {
		in.Lifecycles = append(in.Lifecycles, float64(s.Lifecycles))
		in.Records = append(in.Records, float64(s.Records))
		in.Y = append(in.Y, value(s))
	}
	return stats.FitSignal(in, OptionsFor(SignalNativeHeap))
}
