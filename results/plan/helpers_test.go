package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/scenarios"
)

func est(v, lo, hi float64) results.Estimate {
	return results.Estimate{Value: v, Low: lo, High: hi, SE: (hi - lo) / 4, DF: 100, Valid: true}
}

func pt(v float64) results.Estimate { return est(v, v, v) }

// costs are one signal's measured costs: the two-counter fit's per lifecycle
// and per failed close, and the total fit's per lifecycle.
type costs struct {
	perLifecycle, perFailedClose, total results.Estimate
}

// fit builds a signal's fit from its costs.
func (c costs) fit() results.SignalFit {
	tot := results.SignalFit{Unit: "bytes", PerLifecycle: c.total, Samples: 200, SamplesUsed: 180}
	return results.SignalFit{Unit: "bytes", PerLifecycle: c.perLifecycle, PerFailedClose: c.perFailedClose,
		Samples: 200, SamplesUsed: 180, Total: &tot}
}

// runWith is a run of model with the given native heap and RSS costs and
// resident costs per open DB.
func runWith(model string, native, rss costs, resNative, resRSS float64) *results.Run {
	return &results.Run{
		Summary: harness.Summary{Model: model, Lifecycles: 1500, FailedCloses: 75},
		Fits: map[string]results.SignalFit{
			results.SignalNativeHeap: native.fit(),
			results.SignalRSS:        rss.fit(),
		},
		Resident: &results.Resident{NativeHeapPerDB: resNative, RSSPerDB: resRSS, OpenDBs: 24},
	}
}

func resultWith(t testing.TB, runs ...*results.Run) *results.Result {
	t.Helper()
	sc, err := scenarios.Get(scenarios.DefaultName())
	require.NoError(t, err)
	r := &results.Result{SchemaVersion: results.SchemaVersion, Tool: "rocksleak", Status: results.StatusComplete,
		Scenario: sc, Runs: map[string]*results.Run{}, Floors: results.VerdictFloors{NativeHeap: 2048, RSS: 4096}}
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
