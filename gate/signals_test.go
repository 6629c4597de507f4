package gate

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
)

// TestSignalSlopeMetrics checks the slope metrics come from analysis' signal
// registry: the five there were before it, with their units, and one per
// lifecycle for every signal that names a gate prefix. Shown failing with the
// FDs entry's Gate removed from the registry (fd_growth_per_lifecycle is not a
// metric).
func TestSignalSlopeMetrics(t *testing.T) {
	for name, unit := range map[string]string{
		"native_growth_per_lifecycle":       UnitBytesPerLifecycle,
		"rss_growth_per_lifecycle":          UnitBytesPerLifecycle,
		"fd_growth_per_lifecycle":           UnitFDsPerLifecycle,
		"native_growth_per_million_records": UnitBytesPerMillionRecords,
		"rss_growth_per_million_records":    UnitBytesPerMillionRecords,
	} {
		m, ok := metrics[name]
		require.True(t, ok, "%s is not a metric", name)
		require.Equal(t, unit, m.unit, name)
		require.True(t, m.estimate, name)
	}
	n := 0
	for _, d := range analysis.Registered() {
		if d.Gate == nil {
			continue
		}
		n++
		require.Contains(t, metrics, d.Gate.Prefix+"_growth_per_lifecycle", d.Key)
		if d.Gate.PerMillion {
			n++
			require.Contains(t, metrics, d.Gate.Prefix+"_growth_per_million_records", d.Key)
		}
	}
	slopes := 0
	for _, m := range metrics {
		if m.estimate {
			slopes++
		}
	}
	require.Equal(t, n, slopes, "every slope metric is a registered signal's")
}
