package results

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// TestFinding: the finding names each release's verdict with its native
// heap's growth and interval, and says the fix removes a difference only
// when the difference's interval lies above zero (otherwise it says it is
// not yet told from zero): the sentence never contradicts its interval.
func TestFinding(t *testing.T) {
	yes, no := true, false
	fit := func(v, lo, hi float64) map[string]schema.SignalFit {
		tot := schema.SignalFit{Fit: stats.Fit{PerLifecycle: stats.Estimate{Value: v, Low: lo, High: hi, SE: 1, DF: 100, Valid: true}}}
		return map[string]schema.SignalFit{analysis.SignalNativeHeap: {Total: &tot}}
	}
	r := &schema.Result{Models: []string{"leaky", "fixed"}, Floors: analysis.DefaultFloors(), Runs: map[string]*schema.Run{
		"leaky": {Fits: fit(11366, 10650, 12083), Verdict: &schema.Verdict{Leak: &yes}},
		"fixed": {Fits: fit(540, -180, 1260), Verdict: &schema.Verdict{Leak: &no}},
	}}
	diff := func(v, lo, hi float64) []schema.Comparison {
		return []schema.Comparison{{A: "leaky", B: "fixed", Signal: analysis.SignalNativeHeap,
			Difference: stats.Estimate{Value: v, Low: lo, High: hi, SE: 1, DF: 100, Valid: true}}}
	}
	r.Comparisons = diff(10826, 10000, 11600)
	assert.Equal(t, []string{
		"4.3.0 (leaky) leaks: native heap +11.1 KiB [10.4 KiB, 11.8 KiB] per lifecycle (95% CI).",
		"4.3.1 (fixed) does not leak: native heap +540 B [-180 B, 1.23 KiB] per lifecycle (95% CI), below the 2.00 KiB floor, and RSS below its floor.",
		"The fix removes 10.6 KiB [9.77 KiB, 11.3 KiB] of native heap per lifecycle (leaky − fixed, 95% CI).",
	}, Finding(r))
	r.Comparisons = diff(500, -100, 1100)
	assert.Contains(t, Finding(r)[2], "not yet told from zero")

	// Kafka's own jars: kafka-4.3.0 − kafka-4.3.1 is the same fix; any other pair says nothing of it.
	r.Models = []string{"kafka-4.3.0", "kafka-4.3.1"}
	r.Runs = map[string]*schema.Run{"kafka-4.3.0": r.Runs["leaky"], "kafka-4.3.1": r.Runs["fixed"]}
	r.Comparisons = diff(29500, 28800, 30200)
	r.Comparisons[0].A, r.Comparisons[0].B = "kafka-4.3.0", "kafka-4.3.1"
	got := Finding(r)
	require.Len(t, got, 3)
	assert.Equal(t, "The fix removes 28.8 KiB [28.1 KiB, 29.5 KiB] of native heap per lifecycle (kafka-4.3.0 − kafka-4.3.1, 95% CI).", got[2])
	r.Comparisons[0].A, r.Comparisons[0].B = "kafka-4.3.0", "kafka-4.3.2"
	assert.Len(t, Finding(r), 2, "no fix line for another pair")
}

// TestFindingNamesTheEngineAndPrefersThePairedVerdict: each model is named
// with the RocksDB it ran on, and the fix's size is the paired controlled
// verdict when the run has one for the pair (make run's first answer, on
// Kafka's jars), else the difference of the fits. Shown failing before
// engineLabel and pairedFix: the lines named "kafka-4.3.0" bare and quoted
// the fits' difference.
func TestFindingNamesTheEngineAndPrefersThePairedVerdict(t *testing.T) {
	yes := true
	e := func(v, lo, hi float64) stats.Estimate {
		return stats.Estimate{Value: v, Low: lo, High: hi, SE: 1, DF: 100, Valid: true}
	}
	fit := func(v, lo, hi float64) map[string]schema.SignalFit {
		tot := schema.SignalFit{Fit: stats.Fit{PerLifecycle: e(v, lo, hi)}}
		return map[string]schema.SignalFit{analysis.SignalNativeHeap: {Total: &tot}}
	}
	r := &schema.Result{Models: []string{"kafka-4.3.0", "kafka-4.3.1", "leaky"}, Floors: analysis.DefaultFloors(),
		Runs: map[string]*schema.Run{
			"kafka-4.3.0": {Fits: fit(30310, 29900, 30822), Verdict: &schema.Verdict{Leak: &yes}, RocksDBVersion: "10.1.3"},
			"kafka-4.3.1": {Fits: fit(831, 389, 1270), Verdict: &schema.Verdict{}, RocksDBVersion: "10.1.3"},
			"leaky":       {Fits: fit(11366, 10650, 12083), Verdict: &schema.Verdict{Leak: &yes}, RocksDBVersion: "7.8.3"},
		},
		Comparisons: []schema.Comparison{{A: "kafka-4.3.0", B: "kafka-4.3.1", Signal: analysis.SignalNativeHeap,
			Difference: e(-1000, -60000, 58000)}},
		Controlled: []schema.Controlled{{Model: "kafka-4.3.0", Control: "kafka-4.3.1", Signal: analysis.SignalNativeHeap,
			Difference: e(29491, 28979, 29901), Confidence: 0.99, Verdict: "leak"}},
	}
	got := Finding(r)
	require.Len(t, got, 4)
	assert.Equal(t, "kafka-4.3.0 (Kafka's jars, rocksdbjni 10.1.3) leaks: native heap +29.6 KiB [29.2 KiB, 30.1 KiB] per lifecycle (95% CI).", got[0])
	assert.Contains(t, got[1], "kafka-4.3.1 (Kafka's jars, rocksdbjni 10.1.3): inconclusive")
	assert.Equal(t, "4.3.0 (leaky; Go model, RocksDB 7.8.3) leaks: native heap +11.1 KiB [10.4 KiB, 11.8 KiB] per lifecycle (95% CI).", got[2])
	assert.Equal(t, "The fix removes 28.8 KiB [28.3 KiB, 29.2 KiB] of native heap per lifecycle (kafka-4.3.0 − kafka-4.3.1, paired, 99% CI).", got[3])
	// A paired verdict withheld by a flag of the difference's fit, though its
	// interval lies above 0: not "removes", and the flag beside the interval.
	r.Controlled[0].Verdict, r.Controlled[0].Withheld = "inconclusive", "paired difference: warmup-at-limit"
	assert.Equal(t, "What the fix removes is not settled: kafka-4.3.0 − kafka-4.3.1, native heap +28.8 KiB [28.3 KiB, 29.2 KiB] "+
		"per lifecycle (paired, 99% CI), inconclusive (withheld: paired difference: warmup-at-limit).", Finding(r)[3])
	r.Controlled = nil
	assert.Contains(t, Finding(r)[3], "not yet told from zero", "without the paired verdict, the fits' difference")
}

// TestEngineLabelOfASuffixedJarModel: a kafka-<version> model with RocksJava's read-options fix runs Kafka's jars
// too, and is named so. Failed before isJVM parsed the run name: "(Go model, RocksDB 10.1.3)".
func TestEngineLabelOfASuffixedJarModel(t *testing.T) {
	run := &schema.Run{RocksDBVersion: "10.1.3"}
	for m, want := range map[string]string{
		"kafka-4.3.1+read-options-fix": "kafka-4.3.1+read-options-fix (Kafka's jars, rocksdbjni 10.1.3)",
		"kafka-4.3.1@jemalloc":         "kafka-4.3.1@jemalloc (Kafka's jars, rocksdbjni 10.1.3)",
		"fixed+synthetic":              "fixed+synthetic (Go model, RocksDB 10.1.3)",
	} {
		assert.Equal(t, want, engineLabel(m, run), m)
	}
}

// TestFindingOutsideASharedCache: a verdict made outside a filling shared block cache (schema.CacheBound) is worded
// with the native heap outside the cache, not the whole native heap's interval (above the floor), and the verdict
// cell says where it was made; a verdict without one is worded as before (negative control).
func TestFindingOutsideASharedCache(t *testing.T) {
	no := false
	est := func(v, lo, hi float64) stats.Estimate {
		return stats.Estimate{Value: v, Low: lo, High: hi, SE: 1, DF: 100, Valid: true}
	}
	tot := schema.SignalFit{Fit: stats.Fit{PerLifecycle: est(5990, 5840, 6140)}}
	run := &schema.Run{Fits: map[string]schema.SignalFit{analysis.SignalNativeHeap: {Total: &tot}},
		Verdict: &schema.Verdict{Leak: &no, CacheBound: &schema.CacheBound{Caches: 1, Usage: 1 << 20, Capacity: 64 << 20,
			Growth: est(3584, 3430, 3740), Outside: est(900, 700, 1100)}}}
	r := &schema.Result{Models: []string{"kafka-4.3.1"}, Floors: analysis.DefaultFloors(),
		Runs: map[string]*schema.Run{"kafka-4.3.1": run}}
	got := Finding(r)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "does not leak outside its shared block cache: native heap +900 B [700 B, 1.07 KiB] per lifecycle")
	assert.Contains(t, got[0], "grows +3.50 KiB [3.35 KiB, 3.65 KiB] per lifecycle toward its capacity, which bounds it (1.00 MiB of 64.0 MiB)")
	assert.NotContains(t, got[0], "5.85 KiB")
	assert.Equal(t, "no leak outside its shared cache", verdictWord(run))
	run.Verdict.CacheBound = nil
	assert.Equal(t, "no leak", verdictWord(run))
	assert.Contains(t, Finding(r)[0], "does not leak: native heap +5.85 KiB")
}

// TestSummaryNamesTheGrowingLedgerKinds: under a model's verdict the summary names each ledger kind that keeps
// growing, per lifecycle and live at the end, with what its objects are; nothing when none grows.
func TestSummaryNamesTheGrowingLedgerKinds(t *testing.T) {
	run := &schema.Run{Verdict: &schema.Verdict{}, LedgerGrowth: []schema.LedgerGrowth{
		{Kind: "options", PerLifecycle: 1, LiveAtEnd: 829}, {Kind: "read_options", PerLifecycle: 8, LiveAtEnd: 2400}}}
	var b strings.Builder
	summaryVerdictExtras(&b, run)
	assert.Equal(t, "  the ledger grows: options +1.00 per lifecycle, 829 live at the end (the offsets column family's "+
		"ColumnFamilyOptions, one per RocksDB open, which Kafka 4.3.0's RocksDBStore never closes (KAFKA-20616)); "+
		"read_options +8.00 per lifecycle, 2400 live at the end (RocksJava's defaultReadOptions_, one per RocksDB "+
		"instance, which RocksDB.close() leaves (facebook/rocksdb#15069, open; the kafka-<version>+read-options-fix "+
		"model closes them))\n", b.String())
	b.Reset()
	run.LedgerGrowth = nil
	summaryVerdictExtras(&b, run)
	assert.Empty(t, b.String())
}
