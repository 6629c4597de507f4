package results

import (
	"encoding/json"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
)

// BMFMetric is one measure of one benchmark in the Bencher Metric Format
// (https://bencher.dev/docs/reference/bencher-metric-format): a value and,
// optionally, its lower and upper bounds.
type BMFMetric struct {
	Value      float64  `json:"value"`
	LowerValue *float64 `json:"lower_value,omitempty"`
	UpperValue *float64 `json:"upper_value,omitempty"`
}

// BMF is a Bencher Metric Format document: benchmark name → measure slug → metric.
type BMF map[string]map[string]BMFMetric

// bmfSignals are the signals BMF reports, with their measure slug prefix.
var bmfSignals = []struct{ signal, slug string }{
	{analysis.SignalNativeHeap, "native-heap"},
	{analysis.SignalRSS, "rss"},
}

// ToBMF renders a result in the Bencher Metric Format: one benchmark per
// model, named "rocksleak/<scenario>/<model>", whose measures are
//
//   - "<signal>-bytes-per-lifecycle": the whole growth per lifecycle (the
//     Total fit, on which verdicts are decided) with its 95% interval as
//     lower_value/upper_value (the value alone when no interval could be
//     estimated, e.g. too few samples);
//   - "<signal>-bytes-per-failed-close": the two-counter fit's per failed
//     close slope with its interval, only when it could be estimated;
//   - "ns-per-lifecycle": wall time per lifecycle (no bounds).
//
// for the signals native-heap and rss. Models without fits are left out.
// Values are in raw units (bytes, nanoseconds).
func ToBMF(r *schema.Result) BMF {
	out := BMF{}
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.Fits == nil || run.Lifecycles == 0 {
			continue
		}
		measures := map[string]BMFMetric{
			"ns-per-lifecycle": {Value: float64(run.ElapsedNs) / float64(run.Lifecycles)},
		}
		for _, s := range bmfSignals {
			fit, ok := run.Fits[s.signal]
			if !ok {
				continue
			}
			if t := fit.Total; t != nil {
				if e := t.PerLifecycle; e.Valid {
					measures[s.slug+"-bytes-per-lifecycle"] = bounded(e.Value, e.Low, e.High)
				} else {
					// Too few samples for an interval: the value alone.
					measures[s.slug+"-bytes-per-lifecycle"] = BMFMetric{Value: t.BytesPerLifecycle}
				}
			}
			if e := fit.PerFailedClose; e.Valid {
				measures[s.slug+"-bytes-per-failed-close"] = bounded(e.Value, e.Low, e.High)
			}
		}
		out["rocksleak/"+r.Scenario.Name+"/"+m] = measures
	}
	return out
}

func bounded(v, lo, hi float64) BMFMetric {
	return BMFMetric{Value: v, LowerValue: &lo, UpperValue: &hi}
}

// BMFJSON is ToBMF encoded as indented JSON with a final newline (keys sorted,
// so the same result gives the same bytes).
func BMFJSON(r *schema.Result) ([]byte, error) {
	b, err := json.MarshalIndent(ToBMF(r), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
