package plan

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
)

// TestFromScenario: the smoke scenario (window store, 2 tasks × 1 store,
// retention 120 s, 60 s segments, a rebalance every 5 steps of 20 s moving
// half the tasks, 10% close failures) as a topology, and a key-value
// scenario, whose stores roll no segments.
func TestFromScenario(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	topo, note := FromScenario(sc)
	require.NoError(t, topo.Validate())
	assert.Equal(t, 2, topo.Tasks)
	assert.Equal(t, 1, topo.StoresPerTask)
	assert.Equal(t, 3, topo.LiveSegments, "120 s / 60 s + 1")
	assert.Equal(t, Duration(time.Minute), topo.SegmentInterval)
	assert.InDelta(t, 86_400_000.0/(5*20_000), topo.RebalancesPerDay, 1e-9)
	assert.Equal(t, 0.5, topo.RebalanceShare)
	assert.Equal(t, 0.1, topo.CloseFailureRate)
	assert.Equal(t, Duration(30*Day), topo.Horizon)
	assert.Zero(t, topo.Budget)
	assert.Contains(t, topo.Name, "the run's own scenario topology")
	assert.Contains(t, note, "no --topology given")
	assert.Contains(t, note, "2 tasks × 1 stores × 3 live segments")

	kv, err := scenarios.Get("calibration")
	require.NoError(t, err)
	topo, note = FromScenario(kv)
	require.NoError(t, topo.Validate())
	assert.Equal(t, 1, topo.LiveSegments)
	assert.Equal(t, Duration(MaxHorizon), topo.SegmentInterval)
	assert.Contains(t, note, "kv stores roll no segments")
	e := EventsPerDay(topo)
	assert.Less(t, e.SegmentRolls, 0.01, "negligible rolls")
	assert.InDelta(t, topo.RebalancesPerDay*topo.RebalanceShare*4, e.RebalanceReopens, 1e-9)
}
