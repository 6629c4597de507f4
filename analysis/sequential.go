package analysis

import (
	"fmt"
	"math"

	"github.com/rocksleak/rocksleak/measure/stats"
	"github.com/rocksleak/rocksleak/schema"
)

// Sequential decides a model's verdict while its run is still going, so the
// run can stop as soon as the verdict is settled. It looks at the samples at
// geometrically spaced sample counts (MinSamples, then ×Growth each time), at
// most MaxLooks times, and corrects for looking repeatedly by Bonferroni: each
// look uses intervals at confidence 1 − Alpha/MaxLooks, so the chance of any
// false call over all looks stays below Alpha. A look settles:
//
//   - the native-heap verdict when the native heap's whole per-lifecycle
//     interval is above its floor (leak) or below it (no leak);
//   - the verdict when stats.Decide, on native heap and RSS together, is
//     leak or no leak (the two signals agree).
//
// Sequential is not safe for concurrent use.
type Sequential struct {
	Floors     schema.VerdictFloors
	MinSamples int     // samples (timer samples excluded) before the first look; default 40
	Growth     float64 // next look at ×Growth samples; default 1.25
	MaxLooks   int     // default 20
	Alpha      float64 // family-wise error rate over all looks; default 0.05

	looks   int
	nextAt  int
	Native  *schema.Look // when the native-heap verdict settled, nil until then
	Verdict *schema.Look // when the verdict settled, nil until then
}

func (q *Sequential) defaults() {
	if q.MinSamples <= 0 {
		q.MinSamples = 40
	}
	if q.Growth <= 1 {
		q.Growth = 1.25
	}
	if q.MaxLooks <= 0 {
		q.MaxLooks = 20
	}
	if q.Alpha <= 0 {
		q.Alpha = 0.05
	}
	if q.Floors == (schema.VerdictFloors{}) {
		q.Floors = DefaultFloors()
	}
}

// Confidence is the confidence level of each look's intervals.
func (q *Sequential) Confidence() float64 {
	q.defaults()
	return 1 - q.Alpha/float64(q.MaxLooks)
}

// Observe takes the model's samples so far and reports whether the verdict is
// settled (the run may stop). It does work only at look points.
func (q *Sequential) Observe(all []schema.Sample) bool {
	q.defaults()
	if q.Verdict != nil {
		return true
	}
	var samples []schema.Sample
	for _, s := range all {
		if s.Trigger != schema.TriggerTimer {
			samples = append(samples, s)
		}
	}
	n := len(samples)
	if q.nextAt == 0 {
		q.nextAt = q.MinSamples
	}
	if n < q.nextAt || q.looks >= q.MaxLooks {
		return false
	}
	q.looks++
	q.nextAt = int(math.Ceil(float64(n) * q.Growth))
	conf := q.Confidence()
	opt := stats.DefaultOptions()
	opt.Confidence = conf
	fits, err := fitSamples(samples, opt, []string{SignalNativeHeap, SignalRSS})
	if err != nil {
		return false
	}
	last := samples[n-1]
	look := func(leak *bool, reason string) *schema.Look {
		return &schema.Look{Look: q.looks, Samples: n, Lifecycles: last.Lifecycles, ElapsedNs: last.ElapsedNs,
			Confidence: conf, Leak: leak, Reason: reason}
	}
	nat := fits[SignalNativeHeap].Total
	if q.Native == nil && nat.PerLifecycle.Valid {
		yes, no := true, false
		switch {
		case nat.PerLifecycle.Low > q.Floors.NativeHeap:
			q.Native = look(&yes, fmt.Sprintf("native heap %+.0f B/lifecycle, interval [%.0f, %.0f] above the floor %.0f",
				nat.PerLifecycle.Value, nat.PerLifecycle.Low, nat.PerLifecycle.High, q.Floors.NativeHeap))
		case nat.PerLifecycle.High < q.Floors.NativeHeap:
			q.Native = look(&no, fmt.Sprintf("native heap %+.0f B/lifecycle, interval [%.0f, %.0f] below the floor %.0f",
				nat.PerLifecycle.Value, nat.PerLifecycle.Low, nat.PerLifecycle.High, q.Floors.NativeHeap))
		}
	}
	v := stats.Decide(statsFit(*nat), statsFit(*fits[SignalRSS].Total),
		stats.VerdictOptions{NativeFloor: q.Floors.NativeHeap, RSSFloor: q.Floors.RSS})
	if v.Leak != nil {
		q.Verdict = look(v.Leak, v.Reason)
		return true
	}
	return false
}

// Outcome is what the looks found, for the result file.
func (q *Sequential) Outcome() *schema.SequentialOutcome {
	q.defaults()
	return &schema.SequentialOutcome{Confidence: q.Confidence(), MaxLooks: q.MaxLooks, Looks: q.looks,
		Native: q.Native, Verdict: q.Verdict}
}
