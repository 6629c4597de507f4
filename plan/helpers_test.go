package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

func est(v, lo, hi float64) stats.Estimate {
	return stats.Estimate{Value: v, Low: lo, High: hi, SE: (hi - lo) / 4, DF: 100, Valid: true}
}

func pt(v float64) stats.Estimate { return est(v, v, v) }

// costs are one signal's measured costs: the two-counter fit's per lifecycle
// and per failed close, and the total fit's per lifecycle.
type costs struct {
	perLifecycle, perFailedClose, total stats.Estimate
}

// fit builds a signal's fit from its costs.
func (c costs) fit() schema.SignalFit {
	tot := schema.SignalFit{Unit: "bytes", Fit: stats.Fit{PerLifecycle: c.total, Samples: 200, SamplesUsed: 180}}
	return schema.SignalFit{Unit: "bytes", Fit: stats.Fit{PerLifecycle: c.perLifecycle, PerFailedClose: c.perFailedClose,
		Samples: 200, SamplesUsed: 180}, Total: &tot}
}

// runWith is a run of model with the given native heap and RSS costs and
// resident costs per open DB.
func runWith(model string, native, rss costs, resNative, resRSS float64) *schema.Run {
	return &schema.Run{
		Summary: schema.Summary{Model: model, Lifecycles: 1500, FailedCloses: 75},
		Fits: map[string]schema.SignalFit{
			analysis.SignalNativeHeap: native.fit(),
			analysis.SignalRSS:        rss.fit(),
		},
		Resident: &schema.Resident{NativeHeapPerDB: resNative, RSSPerDB: resRSS, OpenDBs: 24},
	}
}

func resultWith(t testing.TB, runs ...*schema.Run) *schema.Result {
	t.Helper()
	sc, err := scenarios.Get(scenarios.DefaultName())
	require.NoError(t, err)
	r := &schema.Result{SchemaVersion: schema.SchemaVersion, Tool: "rocksleak", Status: schema.StatusComplete,
		Scenario: sc, Runs: map[string]*schema.Run{}, Floors: schema.VerdictFloors{NativeHeap: 2048, RSS: 4096}}
	for _, run := range runs {
		r.Models = append(r.Models, run.Model)
		r.Runs[run.Model] = run
	}
	r.Provenance.Seed, r.Provenance.ScenarioDigest = sc.Seed, sc.Digest()
	return r
}

// topo10x2 is 10 tasks × 2 stores, 1 h segments, 3 live segments, no
// rebalances, no failures: 480 lifecycles per day.
func topo10x2() Topology {
	t := DefaultTopology()
	t.Name, t.Tasks, t.StoresPerTask, t.LiveSegments = "t", 10, 2, 3
	t.SegmentInterval = Duration(time.Hour)
	return t
}
