package plan

import (
	"fmt"
	"time"

	"github.com/rocksleak/rocksleak/scenarios"
)

// FromScenario is the topology of a run's own scenario, for a plan made
// without a topology file: the scenario's tasks, stores per task, live
// segments per store (scenarios.Scenario.LiveSegments), segment interval,
// rebalances, share of tasks moved and close failure rate, over
// DefaultTopology (no budget, 30-day horizon). The scenario's stream time is
// taken as the clock: it advances StepMs per step, so a rebalance every N
// steps is Day / (StepMs × N) rebalances a day. A key-value store rolls no
// segments: its segment interval is set to MaxHorizon, so that segment rolls
// are negligible and lifecycles come from rebalances. The note says all this
// in words, for the plan's reader.
func FromScenario(sc scenarios.Scenario) (Topology, string) {
	t := DefaultTopology()
	t.Name = sc.Name + " (the run's own scenario topology)"
	t.Tasks, t.StoresPerTask, t.LiveSegments = sc.Tasks, sc.StoresPerTask, sc.LiveSegments()
	t.CloseFailureRate = sc.CloseFailureRate
	if sc.RebalanceTasks > 0 {
		t.RebalanceShare = sc.RebalanceTasks
	}
	if sc.RebalanceEverySteps > 0 && sc.StepMs > 0 {
		t.RebalancesPerDay = float64(Day/time.Millisecond) / (float64(sc.StepMs) * float64(sc.RebalanceEverySteps))
	}
	segments := ""
	if sc.Store == scenarios.StoreWindow {
		t.SegmentInterval = Duration(time.Duration(sc.SegmentInterval()) * time.Millisecond)
		segments = fmt.Sprintf("a segment every %s of stream time", t.SegmentInterval)
	} else {
		t.SegmentInterval = Duration(MaxHorizon)
		segments = fmt.Sprintf("%s stores roll no segments (segment interval set to %s)", sc.Store, t.SegmentInterval)
	}
	note := fmt.Sprintf("no --topology given: projected onto the run's own scenario topology (%s: %d tasks × %d stores × %d live segments, "+
		"%s, a rebalance every %d steps of %d ms of stream time moving %g of the tasks, %g of closes failing); "+
		"give --topology or topology flags to plan for production",
		sc.Name, t.Tasks, t.StoresPerTask, t.LiveSegments, segments, sc.RebalanceEverySteps, sc.StepMs, t.RebalanceShare,
		t.CloseFailureRate)
	return t, note
}
