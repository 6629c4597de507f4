package fleet

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
)

// TestReferenceIsContiguousAndDeterministic: the parent's replay gives the
// same hashes however a task's steps are cut into phases, and refuses a gap.
func TestReferenceIsContiguousAndDeterministic(t *testing.T) {
	sc, err := scenarios.Get("rehearsal")
	require.NoError(t, err)
	whole := NewReference(sc, 7)
	h, n, err := whole.Outputs(2, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, int64(10*sc.RecordsPerStep*sc.StoresPerTask), n)

	cut := NewReference(sc, 7)
	_, _, err = cut.Outputs(2, 0, 4)
	require.NoError(t, err)
	_, _, err = cut.Outputs(2, 5, 10)
	assert.Error(t, err, "a gap in the steps")
	again := NewReference(sc, 7)
	h2, _, err := again.Outputs(2, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, h, h2)
	other := NewReference(sc, 8)
	h3, _, err := other.Outputs(2, 0, 10)
	require.NoError(t, err)
	assert.NotEqual(t, h, h3, "another seed, other records")
}
