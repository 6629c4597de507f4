//go:build !race

package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestTheilSenFast: n = 20,000 must return well under a second (the race
// detector slows it several-fold, so this runs only without it).
func TestTheilSenFast(t *testing.T) {
	n := 20000
	in := synth(n, line(11000), ar1(seeded(4), n, 0.7, 20000))
	start := time.Now()
	TheilSen(in.Lifecycles, in.Y)
	el := time.Since(start)
	t.Logf("TheilSen n=%d: %v", n, el)
	assert.Less(t, el, 500*time.Millisecond)
}
