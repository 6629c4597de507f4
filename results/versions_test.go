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
	all := VersionRows(versionsResult(), nil)
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
	golden.Check(t, filepath.Join("testdata", "versions", "table.txt"), []byte(VersionsText(r, nil)))
	golden.Check(t, filepath.Join("testdata", "versions", "table.md"), []byte(VersionsMarkdown(r, nil)))
}

// TestVersionRowsJudgeAgainstTheReference: every row but the reference
// (4.3.1, KAFKA-20616's fixed release) carries a controlled verdict against
// it, and the row's verdict is analysis.JudgeVersion's, not the run's own:
// 4.3.0 of the hand-made result has a run verdict "inconclusive" (its RSS
// interval reaches the floor) and a native heap above its floor, a leak
// beyond the floor against 4.3.1 and its offsets options live, so its row is
// a leak; 4.2.2's native heap interval reaches the floor, so it stays
// inconclusive. Shown failing before the rows were judged (Verdict was the
// run's own: 4.3.0 "inconclusive").
func TestVersionRowsJudgeAgainstTheReference(t *testing.T) {
	r := versionsResult()
	r.Runs["kafka-4.3.0"].Fits[analysis.SignalNativeHeap].Total.Fit.PerLifecycle = stats.Estimate{Value: 30000,
		Low: 29500, High: 30500, SE: 250, DF: 500, Valid: true}
	r.Runs["kafka-4.3.1"].Fits[analysis.SignalNativeHeap].Total.Fit.PerLifecycle = stats.Estimate{Value: 800,
		Low: 400, High: 1200, SE: 200, DF: 500, Valid: true}
	assert.Equal(t, "kafka-4.3.1", ReferenceVersion(r))
	rows := VersionRows(r, nil)
	require.Len(t, rows, 3)
	require.NotNil(t, rows[1].VsReference)
	assert.Equal(t, "kafka-4.3.1", rows[1].VsReference.Control)
	assert.Equal(t, "leak", rows[1].VsReference.Verdict, rows[1].VsReference.Reason)
	assert.Equal(t, analysis.WordLeak, rows[1].Verdict, rows[1].Judgement.String())
	assert.Equal(t, analysis.WordInconclusive, rows[1].RunVerdict)
	assert.Nil(t, rows[2].VsReference, "the reference is not judged against itself")
	assert.Equal(t, analysis.WordNoLeak, rows[2].Verdict, rows[2].Judgement.String())
	assert.Equal(t, analysis.WordInconclusive, rows[0].Verdict, rows[0].Judgement.String())
}

// TestReferenceVersion: 4.3.1 when the run has it, else the newest version of
// the run (not a +synthetic or +read-options-fix run, not a Go model), "" with
// none.
func TestReferenceVersion(t *testing.T) {
	for _, c := range []struct {
		models []string
		want   string
	}{
		{[]string{"kafka-4.2.2", "kafka-4.3.0", "kafka-4.3.1", "kafka-4.4.0"}, "kafka-4.3.1"},
		{[]string{"kafka-4.0.0", "kafka-4.2.1", "kafka-4.1.2", "leaky"}, "kafka-4.2.1"},
		{[]string{"kafka-4.2.2", "kafka-4.3.0+synthetic", "kafka-4.3.2+read-options-fix"}, "kafka-4.2.2"},
		{[]string{"leaky", "fixed"}, ""},
	} {
		assert.Equal(t, c.want, ReferenceVersion(&schema.Result{Models: c.models}), c.models)
	}
}
