package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/plan"
	"github.com/rocksleak/rocksleak/schema"
)

// TestPlanWithoutTopology: without --topology the plan projects onto the
// result's own scenario topology and says so (first warning, topology name);
// topology flags alone go over the defaults, as before, and say nothing.
func TestPlanWithoutTopology(t *testing.T) {
	dir := t.TempDir()
	res := planResult(t, dir)
	r, err := schema.Read(res)
	require.NoError(t, err)
	want, _ := plan.FromScenario(r.Scenario)

	stdout, stderr, code := planCLI(t, "--result", res, "--model", "leaky", "--format", "json")
	require.Equal(t, 0, code, stderr)
	var p plan.Plan
	require.NoError(t, json.Unmarshal([]byte(stdout), &p))
	assert.Equal(t, want, p.Topology)
	require.NotEmpty(t, p.Warnings)
	assert.Contains(t, p.Warnings[0], "no --topology given: projected onto the run's own scenario topology")
	assert.Positive(t, p.Events.Lifecycles)

	text, stderr, code := planCLI(t, "--result", res, "--model", "leaky")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, text, "the run's own scenario topology")

	stdout, stderr, code = planCLI(t, "--result", res, "--model", "leaky", "--tasks", "7", "--stores-per-task", "1",
		"--live-segments", "1", "--segment-interval", "1h", "--format", "json")
	require.Equal(t, 0, code, stderr)
	var q plan.Plan
	require.NoError(t, json.Unmarshal([]byte(stdout), &q))
	assert.Equal(t, 7, q.Topology.Tasks)
	assert.Zero(t, q.Topology.RebalancesPerDay, "flags alone go over the defaults, not the scenario")
	assert.NotContains(t, q.Topology.Name, "own scenario")
	for _, w := range q.Warnings {
		assert.NotContains(t, w, "no --topology given")
	}
}
