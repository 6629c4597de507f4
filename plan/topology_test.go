package plan

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ordersAggregator = `name: orders-aggregator
tasks: 32
stores_per_task: 2
live_segments: 3
segment_interval: 1h
rebalances_per_day: 4
close_failure_rate: 0.01
budget: 4GiB
`

func TestParseTopology(t *testing.T) {
	topo, err := ParseTopology([]byte(ordersAggregator))
	require.NoError(t, err)
	require.NoError(t, topo.Validate())
	assert.Equal(t, Topology{Name: "orders-aggregator", Tasks: 32, StoresPerTask: 2, LiveSegments: 3,
		SegmentInterval: Duration(time.Hour), RebalancesPerDay: 4, RebalanceShare: 1, CloseFailureRate: 0.01,
		Budget: 4 << 30, Horizon: Duration(30 * Day)}, topo)
}

func TestTopologyValidationNamesTheField(t *testing.T) {
	base := "tasks: 10\nstores_per_task: 2\nlive_segments: 3\nsegment_interval: 1h\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"empty document", "", []string{"empty"}},
		{"zero value: counts and interval required", "name: x\n", []string{"tasks: 0 must be ≥ 1", "stores_per_task", "live_segments", "segment_interval"}},
		{"negative tasks", "tasks: -3\nstores_per_task: 2\nlive_segments: 3\nsegment_interval: 1h\n", []string{"tasks: -3 must be ≥ 1"}},
		{"zero stores", "tasks: 1\nstores_per_task: 0\nlive_segments: 3\nsegment_interval: 1h\n", []string{"stores_per_task: 0"}},
		{"negative live segments", "tasks: 1\nstores_per_task: 1\nlive_segments: -1\nsegment_interval: 1h\n", []string{"live_segments: -1"}},
		{"zero interval", "tasks: 1\nstores_per_task: 1\nlive_segments: 1\nsegment_interval: 0s\n", []string{"segment_interval", "must be positive"}},
		{"negative interval", "tasks: 1\nstores_per_task: 1\nlive_segments: 1\nsegment_interval: -1h\n", []string{"segment_interval", "must be positive"}},
		{"sub-ms interval", "tasks: 1\nstores_per_task: 1\nlive_segments: 1\nsegment_interval: 500us\n", []string{"segment_interval", "below 1ms"}},
		{"duplicate key", base + "segment_interval: 2h\n", []string{"segment_interval", "already"}},
		{"interval not a duration", "tasks: 1\nstores_per_task: 1\nlive_segments: 1\nsegment_interval: one hour\n", []string{"line 4", "not a duration"}},
		{"bare number interval", "tasks: 1\nstores_per_task: 1\nlive_segments: 1\nsegment_interval: 3600\n", []string{"line 4", "no unit"}},
		{"rate above 1", base + "close_failure_rate: 1.5\n", []string{"close_failure_rate: 1.5 must be in [0, 1]"}},
		{"negative rate", base + "close_failure_rate: -0.1\n", []string{"close_failure_rate: -0.1"}},
		{"NaN rate", base + "close_failure_rate: .nan\n", []string{"close_failure_rate", "not a finite number"}},
		{"too many tasks", "tasks: 2000000\nstores_per_task: 2\nlive_segments: 3\nsegment_interval: 1h\n", []string{"tasks: 2000000 is above 1000000"}},
		{"too many rebalances", base + "rebalances_per_day: 1e7\n", []string{"rebalances_per_day", "above"}},
		{"negative rebalances", base + "rebalances_per_day: -4\n", []string{"rebalances_per_day: -4 must be ≥ 0"}},
		{"infinite rebalances", base + "rebalances_per_day: .inf\n", []string{"rebalances_per_day", "not a finite"}},
		{"zero share", base + "rebalance_share: 0\n", []string{"rebalance_share: 0 must be in (0, 1]"}},
		{"share above 1", base + "rebalance_share: 2\n", []string{"rebalance_share: 2"}},
		{"negative budget", base + "budget: -1GiB\n", []string{"budget", "must be ≥ 0"}},
		{"budget unit unknown", base + "budget: 4 parsecs\n", []string{"line 5", "unknown unit"}},
		{"budget not a size", base + "budget: lots\n", []string{"line 5", "not a size"}},
		{"zero horizon", base + "horizon: 0s\n", []string{"horizon", "must be positive"}},
		{"horizon too long", base + "horizon: 20000d\n", []string{"horizon", "beyond 3650 days"}},
		{"unknown field", base + "partitions: 12\n", []string{`unknown field "partitions"`, "live_segments"}},
		{"wrong type", "tasks: many\n", []string{"line 1", "many"}},
		{"list for a duration", base + "horizon: [1d]\n", []string{"line 5", "duration must be a string"}},
		{"malformed", "tasks: [1\n", []string{"line"}},
		{"two documents", base + "---\ntasks: 1\n", []string{"one YAML document"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo, err := ParseTopology([]byte(tc.yaml))
			if err == nil {
				err = topo.Validate()
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidTopology)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestTopologySet(t *testing.T) {
	topo, err := ParseTopology([]byte(ordersAggregator))
	require.NoError(t, err)
	require.NoError(t, topo.Set("tasks", "64"))
	require.NoError(t, topo.Set("budget", "512MiB"))
	require.NoError(t, topo.Set("horizon", "90d"))
	require.NoError(t, topo.Set("segment_interval", "30m"))
	assert.Equal(t, 64, topo.Tasks)
	assert.Equal(t, Bytes(512<<20), topo.Budget)
	assert.Equal(t, Duration(90*Day), topo.Horizon)
	assert.Equal(t, Duration(30*time.Minute), topo.SegmentInterval)
	for key, value := range map[string]string{"tasks": "x", "close_failure_rate": "NaN", "budget": "4XB", "horizon": "3", "warp": "9"} {
		err := topo.Set(key, value)
		assert.ErrorIs(t, err, ErrInvalidTopology, key)
		assert.ErrorContains(t, err, key)
	}
}

func TestDurationString(t *testing.T) {
	assert.Equal(t, "30d", Duration(30*Day).String())
	assert.Equal(t, "1h", Duration(time.Hour).String())
	assert.Equal(t, "1h30m", Duration(90*time.Minute).String())
	assert.Equal(t, "2m30s", Duration(150*time.Second).String())
	assert.Equal(t, "1h0m5s", Duration(time.Hour+5*time.Second).String())
}

func TestLoadTopology(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadTopology(filepath.Join(dir, "missing.yaml"))
	assert.ErrorIs(t, err, ErrInvalidTopology)
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("tasks: 1\nflux: 2\n"), 0o644))
	_, err = LoadTopology(bad)
	assert.ErrorIs(t, err, ErrInvalidTopology)
	assert.ErrorContains(t, err, "bad.yaml")
	assert.ErrorContains(t, err, `"flux"`)
}
