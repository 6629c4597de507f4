package results

import (
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/measure/stats"
	"github.com/rocksleak/rocksleak/schema"
)

// BenchLines renders a result as Go benchmark output, one line per model, so
// that benchstat can compare runs the way Go users compare benchmarks:
//
//	BenchmarkLifecycle/<scenario>/<model>  <lifecycles>  <ns> ns/op  <b> native-B/lifecycle  <b> rss-B/lifecycle  ...
//
// ns/op is wall time per lifecycle; the byte figures are the whole growth per
// lifecycle (Total fits), per failed close (two-counter fit) and RSS growth
// per million records. Models without fits are left out.
func BenchLines(r *schema.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goos: %s\ngoarch: %s\npkg: rocksleak/%s\n", r.Provenance.OS, r.Provenance.Arch, r.Scenario.Name)
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.Fits == nil || run.Lifecycles == 0 {
			continue
		}
		nat, rss := run.Fits[analysis.SignalNativeHeap], run.Fits[analysis.SignalRSS]
		fmt.Fprintf(&b, "BenchmarkLifecycle/%s/%s\t%d\t%.0f ns/op\t%.0f native-B/lifecycle\t%.0f rss-B/lifecycle\t%.0f native-B/failed-close\t%.0f rss-B/Mrecords\n",
			r.Scenario.Name, m, run.Lifecycles, float64(run.ElapsedNs)/float64(run.Lifecycles),
			nat.Total.BytesPerLifecycle, rss.Total.BytesPerLifecycle, validValue(nat.PerFailedClose),
			rss.BytesPerMillionRecords)
	}
	return b.String()
}

func validValue(e stats.Estimate) float64 {
	if e.Valid {
		return e.Value
	}
	return 0
}
