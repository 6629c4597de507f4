package goengine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/scenarios"
)

// TestGoEngineHonoursTheWholeCatalogue: the Go engine re-implements every
// scenario field, --profile included, so no catalogue scenario is refused.
func TestGoEngineHonoursTheWholeCatalogue(t *testing.T) {
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Get(name)
		require.NoError(t, err)
		assert.NoError(t, engine.Refuse(Engine{}, sc, true), name)
	}
}
