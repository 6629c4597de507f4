package results

import (
	"bytes"
	"math"

	"golang.org/x/perf/benchfmt"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// BenchLines renders a result as Go benchmark output, written with
// golang.org/x/perf/benchfmt (the format benchstat reads), one line per
// model, so that benchstat can compare runs the way Go users compare
// benchmarks:
//
//	goos: <os>
//	goarch: <arch>
//	pkg: rocksleak/<scenario>
//	BenchmarkLifecycle/<scenario>/<model> <lifecycles> <ns> ns/op <b> native-B/lifecycle <b> rss-B/lifecycle ...
//
// ns/op is wall time per lifecycle; the byte figures are the whole growth per
// lifecycle (Total fits), per failed close (two-counter fit) and RSS growth
// per million records, each rounded to a whole number (benchfmt writes them
// in Go's %v form, e.g. 1.6e+07). Models without fits are left out.
func BenchLines(r *schema.Result) string {
	var b bytes.Buffer
	w := benchfmt.NewWriter(&b)
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.Fits == nil || run.Lifecycles == 0 {
			continue
		}
		nat, rss := run.Fits[analysis.SignalNativeHeap], run.Fits[analysis.SignalRSS]
		res := &benchfmt.Result{
			Config: []benchfmt.Config{
				{Key: "goos", Value: []byte(r.Provenance.OS), File: true},
				{Key: "goarch", Value: []byte(r.Provenance.Arch), File: true},
				{Key: "pkg", Value: []byte("rocksleak/" + r.Scenario.Name), File: true},
			},
			Name:  benchfmt.Name("Lifecycle/" + r.Scenario.Name + "/" + m),
			Iters: int(run.Lifecycles),
			Values: []benchfmt.Value{
				{Value: math.Round(float64(run.ElapsedNs) / float64(run.Lifecycles)), Unit: "ns/op"},
				{Value: math.Round(totalOf(nat)), Unit: "native-B/lifecycle"},
				{Value: math.Round(totalOf(rss)), Unit: "rss-B/lifecycle"},
				{Value: math.Round(validValue(nat.PerFailedClose)), Unit: "native-B/failed-close"},
				{Value: math.Round(rss.BytesPerMillionRecords), Unit: "rss-B/Mrecords"},
			},
		}
		// Writing to a bytes.Buffer cannot fail.
		_ = w.Write(res)
	}
	return b.String()
}

// totalOf is the whole growth per lifecycle: the Total fit's slope.
func totalOf(f schema.SignalFit) float64 {
	if f.Total == nil {
		return 0
	}
	return f.Total.BytesPerLifecycle
}

func validValue(e stats.Estimate) float64 {
	if e.Valid {
		return e.Value
	}
	return 0
}
