package lifecycle

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestScheduledInjectorFailsOnlyAsTold: a schedule's executor decides every
// failure: no close fails by a draw, and exactly the inits it names fail.
func TestScheduledInjectorFailsOnlyAsTold(t *testing.T) {
	i := NewScheduledInjector()
	for range 100 {
		assert.Equal(t, NoFault, i.NextClose())
		assert.False(t, i.NextInit())
	}
	i.FailNextInits(2)
	assert.True(t, i.NextInit())
	assert.True(t, i.NextInit())
	assert.False(t, i.NextInit(), "two, then none")
	i.FailNextInits(3)
	assert.True(t, i.NextInit())
	i.FailNextInits(0)
	assert.False(t, i.NextInit(), "cleared")
}
