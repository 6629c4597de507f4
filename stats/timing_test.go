package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheilSenBoundedWork: TheilSen's cost does not grow with n past
// theilSenMaxPoints: at n = 20,000 it takes the pairwise slopes of
// theilSenMaxPoints points spread over the whole run (both ends included), and
// still recovers the known slope. The time itself is BenchmarkTheilSen's
// business (bench_test.go): the suite never asserts on wall-clock time.
func TestTheilSenBoundedWork(t *testing.T) {
	n := 20000
	idx := thin(n, theilSenMaxPoints)
	require.Len(t, idx, theilSenMaxPoints)
	assert.Equal(t, 0, idx[0])
	assert.Equal(t, n-1, idx[len(idx)-1])
	in := synth(n, line(11000), ar1(seeded(4), n, 0.7, 20000))
	assert.InEpsilon(t, 11000, TheilSen(in.Lifecycles, in.Y), 0.02)
}
