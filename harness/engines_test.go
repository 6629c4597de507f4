package harness

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/engine/jvm"
	"github.com/rocksleak/rocksleak/scenarios"
)

// TestRunRefusesAnUnbuiltKafkaVersionFirst: a run mixing engines stops before
// any model runs when a kafka-<version> model cannot start.
func TestRunRefusesAnUnbuiltKafkaVersionFirst(t *testing.T) {
	sc := smokeScenario(t)
	started := filepath.Join(t.TempDir(), "started")
	_, err := Run(t.Context(), Config{Scenario: sc, Models: []string{"leaky", "kafka-4.3.0"},
		StateRoot: t.TempDir(),
		Engines:   []engine.Engine{jvm.Engine{Dir: t.TempDir()}, shellEngine{"touch " + started}}})
	require.ErrorIs(t, err, jvm.ErrNotBuilt)
	require.ErrorContains(t, err, "kafka-4.3.0:")
	require.NoFileExists(t, started, "no model ran")
}

func smokeScenario(t *testing.T) scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	return sc
}
