package analysis

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// ledgerOf is a run of n lifecycle samples, one per lifecycle, whose kind
// "k" holds count(L) live objects after L lifecycles.
func ledgerOf(n int, count func(L int64) int64) []schema.Sample {
	samples := []schema.Sample{{Trigger: schema.TriggerStart, LiveNatives: map[string]int64{}}}
	for L := int64(1); L <= int64(n); L++ {
		samples = append(samples, schema.Sample{Trigger: schema.TriggerLifecycle, Lifecycles: L,
			LiveNatives: map[string]int64{"k": count(L)}})
	}
	return samples
}

func TestGrowingKinds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		count func(L int64) int64
		grows bool
	}{
		{"one per lifecycle", func(L int64) int64 { return L }, true},
		{"one per 20 lifecycles (a failed close's leak)", func(L int64) int64 { return L / 20 }, true},
		{"24 open DBs and a working set above them", func(L int64) int64 { return 24 + L%3 }, false},
		{"the open stores filling up, then held", func(L int64) int64 { return min(L, 48) }, false},
		{"a warm-up that levels off at a third of the run", func(L int64) int64 { return min(L, 300) }, false},
		{"a leak that starts half way", func(L int64) int64 { return max(0, L-500) }, true},
		{"slowing as a square root", func(L int64) int64 { return int64(30 * math.Sqrt(float64(L))) }, false},
		{"a ramp in the second quarter, then a trickle", func(L int64) int64 {
			return min(max(L-250, 0), 250) + max(L-500, 0)/50
		}, false},
		{"none", func(int64) int64 { return 0 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := GrowingKinds(ledgerOf(1000, tc.count))
			if !tc.grows {
				assert.Empty(t, g)
				return
			}
			require.Len(t, g, 1)
			assert.Equal(t, "k", g[0].Kind)
			assert.Equal(t, tc.count(1000), g[0].LiveAtEnd)
		})
	}
}

// On real runs of Kafka's jars: RocksJava's default ReadOptions, one per
// open, rise with lifecycles on every version, and 4.3.0's options (the
// KAFKA-20616 leak) too; the stores' own objects (one DB, its column family
// handles and options per open store) do not.
func TestGrowingKindsOnTheJars(t *testing.T) {
	_, samples := versionsRun(t)
	for model, want := range map[string][]string{
		"kafka-4.2.2": {"read_options"},
		"kafka-4.3.0": {"options", "read_options"},
		"kafka-4.3.1": {"read_options"},
	} {
		var got []string
		for _, g := range GrowingKinds(samples[model]) {
			got = append(got, g.Kind)
			assert.InDelta(t, 1.0, g.PerLifecycle, 0.05, "%s %s", model, g.Kind)
		}
		assert.Equal(t, want, got, model)
	}
}

// TestAnalyzeKeepsTheGrowingKinds: Analyze puts each run's growing ledger kinds into result.json's run
// (schema.Run.LedgerGrowth), as GrowingKinds finds them on its samples between lifecycles: on the jars' runs,
// 4.3.0's offsets options and every version's read options; the stores' own objects are not there.
func TestAnalyzeKeepsTheGrowingKinds(t *testing.T) {
	r, samples := versionsRun(t)
	require.NoError(t, Analyze(r, samples, DefaultFloors()))
	for model, want := range map[string][]string{
		"kafka-4.2.2": {"read_options"},
		"kafka-4.3.0": {"options", "read_options"},
		"kafka-4.3.1": {"read_options"},
	} {
		var got []string
		for _, g := range r.Runs[model].LedgerGrowth {
			got = append(got, g.Kind)
		}
		assert.Equal(t, want, got, model)
	}
}
