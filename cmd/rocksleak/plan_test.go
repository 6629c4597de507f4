package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/plan"
	"github.com/rocksleak/rocksleak/schema"
)

// planCLI runs "rocksleak plan ARGS" as main would.
func planCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	err := planCmd(&o, &e, args)
	if err != nil {
		e.WriteString("rocksleak: " + err.Error() + "\n")
	}
	return o.String(), e.String(), exitCode(err)
}

// planResult writes a leaky+fixed result: the leaky model grows 11,000 B of
// native heap per lifecycle (and nothing per failed close), the fixed one
// does not grow.
func planResult(t *testing.T, dir string) string {
	leaky := gateRun("leaky", gateEst(11_000, 10_000, 12_000), gateEst(0, 0, 0), 0)
	native := leaky.Fits[analysis.SignalNativeHeap]
	native.PerFailedClose = gateEst(0, 0, 0)
	leaky.Fits[analysis.SignalNativeHeap] = native
	yes := true
	leaky.Verdict = &schema.Verdict{Leak: &yes}
	fixed := gateRun("fixed", gateEst(100, -200, 400), gateEst(0, 0, 0), 0)
	return writeGateResult(t, dir, "lf", 20616, nil, leaky, fixed)
}

func TestPlanFromFlags(t *testing.T) {
	dir := t.TempDir()
	res := planResult(t, dir)
	// 10 tasks × 2 stores, 1 h segments: 480 lifecycles/day × 11,000 B.
	stdout, stderr, code := planCLI(t, "--result", res, "--model", "leaky", "--resident-model", "fixed",
		"--tasks", "10", "--stores-per-task", "2", "--live-segments", "3", "--segment-interval", "1h",
		"--budget", "4GiB", "--format", "json")
	require.Equal(t, 0, code, stderr)
	var p plan.Plan
	require.NoError(t, json.Unmarshal([]byte(stdout), &p))
	assert.Equal(t, 480.0, p.Events.Lifecycles)
	require.Len(t, p.Signals, 2)
	assert.Equal(t, 5_280_000.0, p.Signals[0].GrowthPerDay.Expected)
	assert.Equal(t, 60*456_136.0, p.Signals[0].Resident)
	assert.InDelta(t, (float64(4<<30)-60*456_136-p.Signals[0].TimerHeld.Expected)/5_280_000, p.Signals[0].UntilBudget.Expected.Days, 1e-9,
		"the budget less the resident cost and the timer backlog held, over the growth per day")
	assert.False(t, p.Signals[1].Sustained, "RSS does not grow")
	assert.Equal(t, res, p.Source.Path)
}

func TestPlanTopologyFileAndOverrides(t *testing.T) {
	dir := t.TempDir()
	res := planResult(t, dir)
	topo := filepath.Join(dir, "orders.yaml")
	require.NoError(t, os.WriteFile(topo, []byte("name: orders-aggregator\ntasks: 32\nstores_per_task: 2\n"+
		"live_segments: 3\nsegment_interval: 1h\nrebalances_per_day: 4\nclose_failure_rate: 0.01\nbudget: 4GiB\n"), 0o644))
	pngPath := filepath.Join(dir, "plan.png")
	stdout, stderr, code := planCLI(t, "--result", filepath.Dir(res), "--model", "leaky", "--resident-model", "fixed",
		"--topology", topo, "--png", pngPath)
	require.Equal(t, 0, code, stderr)
	for _, w := range []string{"capacity plan: orders-aggregator, model leaky (resident cost from fixed)",
		"32 tasks × 2 stores × 3 live segments = 192 open DBs", "2304 lifecycles (1536 segment rolls + 768 rebalance reopens)",
		"23.04 failed closes", "native heap: growth", "sustained: the verdict is a leak", "RSS: no sustained growth", "usage at day 30",
		"4.00 GiB budget reached in"} {
		assert.Contains(t, stdout, w)
	}
	f, err := os.Open(pngPath)
	require.NoError(t, err)
	defer f.Close()
	_, err = png.Decode(f)
	require.NoError(t, err)

	// A flag overrides the file.
	stdout, _, code = planCLI(t, "--result", res, "--model", "leaky", "--topology", topo, "--tasks", "64", "--format", "json")
	require.Equal(t, 0, code)
	var p plan.Plan
	require.NoError(t, json.Unmarshal([]byte(stdout), &p))
	assert.Equal(t, 64, p.Topology.Tasks)
	assert.Equal(t, 2*2304.0, p.Events.Lifecycles)
	assert.Contains(t, p.Warnings[0], "which leaks", "resident cost read from the leaky model")
}

func TestPlanBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	res := planResult(t, dir)
	writeTopo := func(name, body string) string {
		p := filepath.Join(dir, name+".yaml")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	ok := []string{"--result", res, "--model", "leaky", "--tasks", "10", "--stores-per-task", "2", "--live-segments", "3",
		"--segment-interval", "1h"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no result", []string{"--tasks", "1"}, []string{"--result is required"}},
		{"unreadable result", []string{"--result", filepath.Join(dir, "nope.json")}, []string{"nope.json"}},
		{"several models, none named", []string{"--result", res, "--tasks", "10", "--stores-per-task", "2", "--live-segments", "3",
			"--segment-interval", "1h"}, []string{"--model"}},
		{"unknown model", append(append([]string{}, ok...), "--model", "sorta-fixed"), []string{`"sorta-fixed"`}},
		{"missing counts", []string{"--result", res, "--model", "leaky", "--tasks", "0"}, []string{"tasks: 0 must be ≥ 1", "segment_interval"}},
		{"negative tasks", append(append([]string{}, ok...), "--tasks", "-4"), []string{"tasks: -4"}},
		{"tasks not a number", append(append([]string{}, ok...), "--tasks", "many"), []string{"--tasks", "many"}},
		{"zero interval", append(append([]string{}, ok...), "--segment-interval", "0s"), []string{"segment_interval", "positive"}},
		{"interval without unit", append(append([]string{}, ok...), "--segment-interval", "3600"), []string{"--segment-interval", "no unit"}},
		{"rate above 1", append(append([]string{}, ok...), "--close-failure-rate", "1.5"), []string{"close_failure_rate: 1.5"}},
		{"share above 1", append(append([]string{}, ok...), "--rebalance-share", "1.5"), []string{"rebalance_share"}},
		{"bad budget", append(append([]string{}, ok...), "--budget", "4 bananas"), []string{"--budget", "unknown unit"}},
		{"negative budget", append(append([]string{}, ok...), "--budget", "-1GiB"), []string{"budget", "≥ 0"}},
		{"zero horizon", append(append([]string{}, ok...), "--horizon", "0d"), []string{"horizon"}},
		{"topology file missing", append(append([]string{}, ok...), "--topology", filepath.Join(dir, "none.yaml")), []string{"none.yaml"}},
		{"topology unknown field", append(append([]string{}, ok...), "--topology", writeTopo("unknown", "tasks: 1\npartitions: 6\n")),
			[]string{`unknown field "partitions"`}},
		{"topology bad value", []string{"--result", res, "--model", "leaky", "--topology",
			writeTopo("rate", "tasks: 1\nstores_per_task: 1\nlive_segments: 1\nsegment_interval: 1h\nclose_failure_rate: 2\n")},
			[]string{"close_failure_rate: 2"}},
		{"unknown format", append(append([]string{}, ok...), "--format", "csv"), []string{`unknown format "csv"`}},
		{"stray argument", append(append([]string{}, ok...), "extra"), []string{`unexpected argument "extra"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := planCLI(t, tc.args...)
			assert.Equal(t, 2, code, stderr)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

func TestPlanHelp(t *testing.T) {
	_, stderr, code := planCLI(t, "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, stderr, "lifecycles/day    = tasks × stores × (1 day / segment interval)")
	assert.Contains(t, stderr, "-rebalances-per-day")
}

// --settled-by takes a longer run of the same model: one of another model,
// or no longer than the planned run, is bad input (exit 2) naming the field.
func TestPlanSettledByRefused(t *testing.T) {
	dir := t.TempDir()
	res := planResult(t, dir)
	longer := gateRun("fixed", gateEst(100, -200, 400), gateEst(0, 0, 0), 0)
	longer.Lifecycles, longer.ElapsedNs = 120_000, 3600e9
	for _, tc := range []struct {
		name, field string
		settler     string
	}{
		{"another model", "model", writeGateResult(t, filepath.Join(dir, "other"), "o", 1, nil,
			gateRun("all-fixes", gateEst(0, 0, 0), gateEst(0, 0, 0), 0))},
		{"no longer", "lifecycles", writeGateResult(t, filepath.Join(dir, "same"), "s", 2, nil,
			gateRun("fixed", gateEst(100, -200, 400), gateEst(0, 0, 0), 0))},
		{"no samples beside it", "samples", writeGateResult(t, filepath.Join(dir, "long"), "l", 3, nil, longer)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := planCLI(t, "--result", res, "--model", "fixed", "--settled-by", tc.settler)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, "--settled-by "+tc.settler+": "+tc.field+":")
		})
	}
}
