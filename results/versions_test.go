package results

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

func est(v, lo, hi float64) stats.Estimate {
	return stats.Estimate{Value: v, Low: lo, High: hi, Valid: true}
}

// versionsResult is a hand-made result with two JVM versions, a Go model and
// a +synthetic run: the rows must be the two versions only.
func versionsResult() *schema.Result {
	leak, no := true, false
	fit := func(total, perFC stats.Estimate) schema.SignalFit {
		return schema.SignalFit{Fit: stats.Fit{PerFailedClose: perFC}, Total: &schema.SignalFit{Fit: stats.Fit{PerLifecycle: total}}}
	}
	return &schema.Result{SchemaVersion: schema.SchemaVersion, Status: schema.StatusComplete,
		Models: []string{"leaky", "kafka-4.2.2", "kafka-4.3.0", "kafka-4.3.1", "kafka-4.3.1+synthetic"},
		Floors: schema.VerdictFloors{NativeHeap: 2048, RSS: 2048},
		Runs: map[string]*schema.Run{
			"leaky": {Summary: schema.Summary{Lifecycles: 10}},
			"kafka-4.2.2": {Summary: schema.Summary{Lifecycles: 1031,
				LedgerAtEnd: map[string]int64{"read_options": 1033}}, RocksDBVersion: "10.1.3",
				Fits: map[string]schema.SignalFit{
					analysis.SignalNativeHeap: fit(est(700, -1500, 2900), stats.Estimate{}),
					analysis.SignalRSS:        fit(est(300, -1200, 1800), stats.Estimate{}),
				},
				Verdict: &schema.Verdict{Leak: nil, Reason: "inconclusive: …"}},
			"kafka-4.3.0": {Summary: schema.Summary{Lifecycles: 1031, FailedCloses: 43,
				LedgerAtEnd: map[string]int64{"options": 1033, "read_options": 1033}}, RocksDBVersion: "10.1.3",
				Fits: map[string]schema.SignalFit{
					analysis.SignalNativeHeap: fit(est(33075, 7854, 58265), est(-1200, -90000, 88000)),
					analysis.SignalRSS:        fit(est(50483, -2498, 103424), stats.Estimate{}),
				},
				Verdict: &schema.Verdict{Leak: nil, Reason: "inconclusive: …"}},
			"kafka-4.3.1": {Summary: schema.Summary{Lifecycles: 1031, FailedCloses: 0,
				LedgerAtEnd: map[string]int64{"read_options": 1033}}, RocksDBVersion: "10.1.3",
				Fits: map[string]schema.SignalFit{
					analysis.SignalNativeHeap: fit(est(-300, -1900, 1300), est(5000, -9000, 19000)), // no failed close: not shown
					analysis.SignalRSS:        fit(est(100, -1500, 1700), stats.Estimate{}),
				},
				Verdict: &schema.Verdict{Leak: &no, Reason: "no leak: …"}},
			"kafka-4.3.1+synthetic": {Verdict: &schema.Verdict{Leak: &leak}},
		},
		Controlled: []schema.Controlled{
			{Model: "kafka-4.3.0", Control: "kafka-4.3.1", Differs: "4.3.1's changes missing", Signal: analysis.SignalRSS,
				Difference: est(1, 0, 2), Verdict: "inconclusive", Confidence: 0.99},
			{Model: "kafka-4.3.0", Control: "kafka-4.3.1", Differs: "4.3.1's changes missing",
				Signal: analysis.SignalNativeHeap, Difference: est(33894, 2386, 65331), Verdict: "leak", Confidence: 0.99},
			{Model: "kafka-4.3.1+synthetic", Control: "kafka-4.3.1", Differs: "synthetic leak",
				Signal: analysis.SignalNativeHeap, Difference: est(4096, 3000, 5000), Verdict: "leak", Confidence: 0.99},
		},
	}
}

func TestVersionRowsAreTheJVMVersionsOnly(t *testing.T) {
	all := VersionRows(versionsResult())
	require.Len(t, all, 3)
	assert.Equal(t, "4.2.2", all[0].Kafka)
	assert.True(t, all[0].NoOffsetsCF, "4.2.2 has no offsets column family (versions.tsv)")
	assert.Equal(t, int64(1033), all[0].ReadOptionsLive)
	rows := all[1:]
	assert.Equal(t, "4.3.0", rows[0].Kafka)
	assert.Equal(t, "4.3.1", rows[1].Kafka)
	assert.False(t, rows[0].NoOffsetsCF || rows[1].NoOffsetsCF)
	require.NotNil(t, rows[0].VsNext, "4.3.0 is judged against the next version of the run")
	assert.Equal(t, analysis.SignalNativeHeap, rows[0].VsNext.Signal)
	assert.Nil(t, rows[1].VsNext, "the newest version has no next one; the synthetic pair is not a version pair")
	assert.Equal(t, int64(1033), rows[0].OptionsLive)
	assert.Equal(t, int64(0), rows[1].OptionsLive)
}

// TestVersionsTableGolden: the text and Markdown tables; a run without failed
// closes shows "—" per failed close, not the fit's meaningless value.
func TestVersionsTableGolden(t *testing.T) {
	r := versionsResult()
	golden.Check(t, filepath.Join("testdata", "versions", "table.txt"), []byte(VersionsText(r)))
	golden.Check(t, filepath.Join("testdata", "versions", "table.md"), []byte(VersionsMarkdown(r)))
}
