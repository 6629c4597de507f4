package results

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// checkVerdictAgrees asserts that a verdict says what its own intervals
// say: "leak" only with the native heap's interval above its floor and
// RSS's reaching that floor, "no leak" only with every interval below its floor, and a
// reason that starts with the verdict's word and quotes the intervals it
// rests on.
func checkVerdictAgrees(t *testing.T, name string, v *schema.Verdict, native, rss schema.SignalFit, floors schema.VerdictFloors) {
	t.Helper()
	d := analysis.Decide(native, rss, floors)
	word := analysis.VerdictWord(v.Leak)
	assert.Equal(t, d.Verdict.String(), word, "%s: the stored verdict is the decision on its own fits: %s", name, v.Reason)
	assert.True(t, strings.HasPrefix(v.Reason, word+":"), "%s: reason starts with its verdict %q: %s", name, word, v.Reason)
	switch word {
	case analysis.WordLeak:
		assert.Greater(t, d.Native.Low, floors.NativeHeap, "%s: leak with the native interval not above its floor: %s", name, v.Reason)
		assert.GreaterOrEqual(t, d.RSS.High, floors.NativeHeap, "%s: leak with RSS's interval wholly below the native floor: %s", name, v.Reason)
	case analysis.WordNoLeak:
		assert.Less(t, d.Native.High, floors.NativeHeap, "%s: no leak with the native interval reaching its floor: %s", name, v.Reason)
		assert.Less(t, d.RSS.High, floors.RSS, "%s: no leak with the RSS interval reaching its floor: %s", name, v.Reason)
	default:
		assert.NotEmpty(t, v.Settle, "%s: an inconclusive verdict says what would settle it", name)
	}
}

// TestVerdictsAgreeWithTheirIntervals re-analyses every test result from its
// samples.csv and checks every verdict against its own intervals (the old
// rule called a model "no leak" with RSS's interval wholly above its floor).
func TestVerdictsAgreeWithTheirIntervals(t *testing.T) {
	for _, name := range []string{"smoke", "attribution"} {
		t.Run(name, func(t *testing.T) {
			r := readTestResult(t, name)
			samples, err := schema.ReadSamplesCSV(filepath.Join("testdata", name, "samples.csv"))
			require.NoError(t, err)
			fresh := readTestResult(t, name)
			require.NoError(t, analysis.Analyze(fresh, samples, analysis.DefaultFloors()))
			for _, m := range r.Models {
				for _, res := range []*schema.Result{r, fresh} {
					run := res.Runs[m]
					require.NotNil(t, run.Verdict, m)
					checkVerdictAgrees(t, m, run.Verdict, *run.Fits[analysis.SignalNativeHeap].Total,
						*run.Fits[analysis.SignalRSS].Total, res.Floors)
				}
				assert.Equal(t, fresh.Runs[m].Verdict, r.Runs[m].Verdict, "%s: testdata result.json is this rocksleak's analysis", m)
			}
		})
	}
}

// TestVerdictRSSAboveFloorIsNotNoLeak is the case the old rule got wrong
// (the fixed model of a committed early-verdict run): native heap below its
// floor, RSS's interval wholly above its floor. It is inconclusive, not
// "no leak"; a leak and a no leak are checked the same way.
func TestVerdictRSSAboveFloorIsNotNoLeak(t *testing.T) {
	fit := func(v, half float64) schema.SignalFit {
		return schema.SignalFit{Fit: stats.Fit{PerLifecycle: stats.Estimate{Value: v, Low: v - half, High: v + half, SE: half / 1.96, DF: 1e6, Valid: true},
			Samples: 600, SamplesUsed: 550, LifecyclesUsed: 1100, Confidence: 0.95}}
	}
	floors := analysis.DefaultFloors()
	for _, c := range []struct {
		name        string
		native, rss schema.SignalFit
		want        string
	}{
		{"fixed, RSS above its floor", fit(300, 100), fit(67.1*1024, 32*1024), analysis.WordInconclusive},
		{"leak", fit(11000, 500), fit(16000, 3000), analysis.WordLeak},
		{"no leak", fit(100, 200), fit(900, 500), analysis.WordNoLeak},
		// RSS wholly below the native floor contradicts a leak; RSS whose
		// interval reaches the floor does not.
		{"native above, RSS flat", fit(11000, 500), fit(100, 1000), analysis.WordInconclusive},
		{"native above, RSS wide", fit(11000, 500), fit(100, 3000), analysis.WordLeak},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := analysis.VerdictOf(analysis.Decide(c.native, c.rss, floors), c.native, c.rss)
			assert.Equal(t, c.want, analysis.VerdictWord(v.Leak), v.Reason)
			checkVerdictAgrees(t, c.name, v, c.native, c.rss, floors)
		})
	}
}

// TestReportEarlyStopAndSettle: a verdict reached at an early stop is marked
// as such next to its word, the early-verdict section names the rule and
// the look's level, an inconclusive verdict shows its flags and what would
// settle it, and controlled verdicts get their table.
func TestReportEarlyStopAndSettle(t *testing.T) {
	r := readTestResult(t, "smoke")
	yes := true
	// An inconclusive verdict with a blocking flag (the fixture's own verdict
	// may carry none).
	settle := "run ~60 more lifecycles (twice as long) so the warm-up ends well inside the run"
	r.Runs["leaky"].Verdict = &schema.Verdict{Reason: "inconclusive: native heap: the warm-up cut reached its limit (warm-up may not be over) undermines the fit",
		Flags: []string{"native heap: warmup-at-limit"}, Settle: settle}
	early := r.Runs["fixed"]
	early.Verdict = &schema.Verdict{Leak: &yes, EarlyStop: true,
		Reason: "leak: native heap ... ; early verdict at look 3 (20% of the planned 1500 lifecycles)"}
	early.Sequential = &schema.SequentialOutcome{Rule: analysis.RuleName, PlannedLifecycles: 1500, Looks: 3,
		Confidence: 0.9995, Verdict: &schema.Look{Look: 3, Samples: 120, Lifecycles: 300, ElapsedNs: 2e9,
			Confidence: 0.9995, Leak: &yes}}
	// A paired verdict records its level (99%); a result written before the
	// level was recorded has none, and its intervals were 95%.
	r.Controlled = []schema.Controlled{{Model: "leaky", Control: "fixed", Differs: "test", Signal: analysis.SignalNativeHeap,
		Difference: stats.Estimate{Value: 300, Low: 100, High: 500, Valid: true}, Confidence: 0.99, Verdict: analysis.WordLeak, Lifecycles: 67},
		{Model: "leaky", Control: "fixed", Differs: "old", Signal: analysis.SignalNativeHeap,
			Difference: stats.Estimate{Value: 300, Low: 150, High: 450, Valid: true}, Verdict: analysis.WordLeak, Lifecycles: 67}}
	// A paired verdict withheld by a flag, its interval above 0.
	r.Controlled = append(r.Controlled, schema.Controlled{Model: "leaky", Control: "fixed", Differs: "flagged",
		Signal: analysis.SignalNativeHeap, Difference: stats.Estimate{Value: 300, Low: 100, High: 500, Valid: true},
		Confidence: 0.99, Verdict: analysis.WordInconclusive, Withheld: "paired difference: warmup-at-limit", Lifecycles: 67})
	md := string(ReportMarkdown(r))
	assert.Contains(t, md, "| leaky | fixed | flagged | native heap | +300 B [100 B, 500 B] | 99% | **inconclusive** (withheld: paired difference: warmup-at-limit) | 67 |")
	assert.Contains(t, md, "unless a blocking flag of the fit it rests on withholds it")
	assert.Contains(t, md, "| fixed | **leak** (early stop) | ")
	assert.Contains(t, md, "### Early verdicts (--until-verdict)")
	assert.Contains(t, md, "O'Brien–Fleming-type error-spending rule")
	assert.Contains(t, md, "planned 1500 lifecycles")
	assert.Contains(t, md, "| fixed | not settled: the run went on to its limit | **leak** after 2 s, 300 lifecycles (look 3, intervals at 99.95%) | 3 |")
	assert.Contains(t, md, "### Controlled verdicts")
	assert.Contains(t, md, "| leaky | fixed | test | native heap | +300 B [100 B, 500 B] | 99% | **leak** | 67 |")
	assert.Contains(t, md, "| leaky | fixed | old | native heap | +300 B [150 B, 450 B] | 95% | **leak** | 67 |")
	assert.Contains(t, md, "| native heap: warmup-at-limit | "+settle+" |")
}

// TestReportRestoredRecords: a fit that took restored records as a
// regressor says so under its table, with the per-record cost; one that
// did not says nothing.
func TestReportRestoredRecords(t *testing.T) {
	r := readTestResult(t, "smoke")
	assert.NotContains(t, string(ReportMarkdown(r)), "per restored record")
	f := r.Runs["leaky"].Fits[analysis.SignalRSS]
	tot := *f.Total
	tot.PerRestoredRecord = &stats.Estimate{Value: 12.5, Low: 2.5, High: 22.5, SE: 5, DF: 400, Valid: true}
	f.Total = &tot
	r.Runs["leaky"].Fits[analysis.SignalRSS] = f
	md := string(ReportMarkdown(r))
	assert.Contains(t, md, "RSS per restored record beyond that [95% CI], lifecycle-only fit: leaky +12 B [2 B, 22 B].")
}
