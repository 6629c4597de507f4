package gate

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// est is an estimate with a valid 95% interval.
func est(v, lo, hi float64) stats.Estimate {
	return stats.Estimate{Value: v, Low: lo, High: hi, SE: (hi - lo) / 4, DF: 100, Valid: true}
}

// pt is an estimate with a degenerate interval (a known exact value).
func pt(v float64) stats.Estimate { return est(v, v, v) }

// runOf is one model's run with the given total slopes: native heap per
// lifecycle and RSS per million records; everything else clean.
func runOf(model string, nativePerLifecycle, rssPerMillion stats.Estimate) *schema.Run {
	total := func(pl, pm stats.Estimate) *schema.SignalFit {
		return &schema.SignalFit{Unit: "bytes", Fit: stats.Fit{PerLifecycle: pl, PerMillionRecords: pm, Samples: 200, SamplesUsed: 180}}
	}
	return &schema.Run{
		Summary: schema.Summary{Model: model, Lifecycles: 1500, Records: 192000,
			Restore: schema.RestoreStats{Count: 10, P50Ns: 40e6, MaxNs: 60e6}},
		Samples: 200,
		Fits: map[string]schema.SignalFit{
			analysis.SignalNativeHeap: {Unit: "bytes", Total: total(nativePerLifecycle, pt(0))},
			analysis.SignalRSS:        {Unit: "bytes", Total: total(pt(0), rssPerMillion)},
			analysis.SignalFDs:        {Unit: "fds", Total: total(pt(0), pt(0))},
		},
	}
}

// resultOf is a complete result of the default scenario holding runs.
func resultOf(t testing.TB, seed int64, runs ...*schema.Run) *schema.Result {
	t.Helper()
	sc, err := scenarios.Get(scenarios.DefaultName())
	require.NoError(t, err)
	sc.Seed = seed
	r := &schema.Result{SchemaVersion: schema.SchemaVersion, Tool: "rocksleak", Status: schema.StatusComplete,
		Scenario: sc, Runs: map[string]*schema.Run{}}
	for _, run := range runs {
		r.Models = append(r.Models, run.Model)
		r.Runs[run.Model] = run
	}
	sc.Models = r.Models
	r.Scenario = sc
	r.Provenance.Seed, r.Provenance.ScenarioDigest = seed, sc.Digest()
	return r
}

// fixedRun is a fixed model's run like the measured ones: ~500 B/lifecycle of
// native heap, ~30 MiB of RSS per million records.
func fixedRun() *schema.Run {
	return runOf("fixed", est(500, 300, 700), est(30<<20, 20<<20, 40<<20))
}

func f64(v float64) *float64 { return &v }

// checkNamed returns the result of the check called name.
func checkNamed(t testing.TB, r *Report, name string) CheckResult {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in the report", name)
	return CheckResult{}
}
