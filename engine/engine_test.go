package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

// kafkaOnly runs kafka-<version> models and honours tasks up to 4 only, and
// no heap profile: an engine with one limit.
type kafkaOnly struct{}

func (kafkaOnly) Name() string              { return "the test engine" }
func (kafkaOnly) Runs(rn spec.RunName) bool { return rn.JVM() }
func (kafkaOnly) Capabilities() Capabilities {
	return Capabilities{Limits: []Limit{{Field: "tasks", Honours: "1 to 4",
		OK: func(sc scenarios.Scenario) bool { return sc.Tasks <= 4 }, Why: "four is all it has"}}}
}
func (kafkaOnly) Preflight(spec.RunName) error { return nil }
func (kafkaOnly) Command(spec.RunName, string) ([]string, func(), error) {
	return []string{"true"}, func() {}, nil
}

// TestRefuseNamesTheFieldAndTheEngine: a scenario that sets a field past an
// engine's limit is refused with the field, its value, the engine and what it
// honours; one within it, and a run without --profile, is not (the controls).
func TestRefuseNamesTheFieldAndTheEngine(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	require.LessOrEqual(t, sc.Tasks, 4)
	assert.NoError(t, Refuse(kafkaOnly{}, sc, false), "within the limit")

	require.NoError(t, sc.Set("tasks=8"))
	err = Refuse(kafkaOnly{}, sc, false)
	require.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "tasks: 8, which the test engine does not honour (it honours 1 to 4 only: four is all it has)")

	require.NoError(t, sc.Set("tasks=2"))
	err = Refuse(kafkaOnly{}, sc, true)
	require.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "--profile: the test engine does not profile its children")
}

func TestForPicksTheEngineThatRunsTheModel(t *testing.T) {
	kafka, err := spec.ParseRunName("kafka-4.3.0", spec.ModelNames())
	require.NoError(t, err)
	e, err := For([]Engine{kafkaOnly{}}, kafka)
	require.NoError(t, err)
	assert.Equal(t, "the test engine", e.Name())
	leaky, err := spec.ParseRunName("leaky", spec.ModelNames())
	require.NoError(t, err)
	_, err = For([]Engine{kafkaOnly{}}, leaky)
	assert.ErrorContains(t, err, "leaky: no engine runs this model")
}
