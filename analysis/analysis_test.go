package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/measure/stats"
	"github.com/rocksleak/rocksleak/schema"
)

func TestVerdictWord(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		leak *bool
		want string
	}{{&yes, "leak"}, {&no, "no leak"}, {nil, "inconclusive"}} {
		assert.Equal(t, tc.want, VerdictWord(tc.leak))
	}
}

// TestDifferenceIsSubjectMinusBaseline: the one sign convention.
func TestDifferenceIsSubjectMinusBaseline(t *testing.T) {
	fit := func(v float64) schema.SignalFit {
		return schema.SignalFit{PerLifecycle: stats.Estimate{Value: v, Low: v - 100, High: v + 100, SE: 50, DF: 30, Valid: true},
			Samples: 32, SamplesUsed: 32, Confidence: 0.95}
	}
	leaky, fixed := fit(11000), fit(1000)
	d := Difference(leaky, fixed)
	require.True(t, d.Valid)
	assert.InDelta(t, 10000, d.Value, 1e-9, "leaky − fixed: growth beyond the baseline is positive")
	assert.Less(t, d.Low, d.Value)
	assert.Greater(t, d.High, d.Value)
	assert.InDelta(t, -10000, Difference(fixed, leaky).Value, 1e-9)
}

func TestDefaultFloorsAreTheStatsDefaults(t *testing.T) {
	o := stats.DefaultVerdictOptions()
	assert.Equal(t, schema.VerdictFloors{NativeHeap: o.NativeFloor, RSS: o.RSSFloor}, DefaultFloors())
	assert.Equal(t, schema.VerdictFloors{NativeHeap: 2048, RSS: 12288}, DefaultFloors(), "the floors every verdict has used")
}
