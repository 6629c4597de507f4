package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// untilVerdictDirs are real --until-verdict results and their samples, as
// the runs wrote them: rocksleak run --models leaky,fixed --until-verdict
// --lifecycles 1500 --seed 3, under the unguarded rule (until-verdict, at
// 707df68: leaky stopped at look 4 on "leak", fixed at look 8 on "no leak")
// and under the guarded one (until-verdict-guarded, at d0a17f5: leaky at
// look 7, 67% of the run, fixed at look 5, 92%).
var untilVerdictDirs = []string{"testdata/until-verdict", "testdata/until-verdict-guarded"}

func untilVerdict(t *testing.T, dir string) (*schema.Result, map[string][]schema.Sample) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	require.NoError(t, err)
	r, err := schema.Parse(b)
	require.NoError(t, err)
	samples, err := schema.ReadSamplesCSV(filepath.Join(dir, "samples.csv.gz"))
	require.NoError(t, err)
	return r, samples
}

// TestReanalysisGivesTheVerdictTheRunGave: re-analysing an --until-verdict
// result (what rocksleak report --reanalyze does) applies the early stop
// from what the result records (its sequential outcome: the rule and the
// planned lifecycles), so each model keeps the verdict, the reason, the
// early_stop mark and the looks the run gave.
func TestReanalysisGivesTheVerdictTheRunGave(t *testing.T) {
	for _, dir := range untilVerdictDirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { reanalysisGivesTheVerdictTheRunGave(t, dir) })
	}
}

func reanalysisGivesTheVerdictTheRunGave(t *testing.T, dir string) {
	r, samples := untilVerdict(t, dir)
	want := map[string]schema.Run{}
	for m, run := range r.Runs {
		require.NotNil(t, run.Sequential, m)
		require.True(t, run.Verdict.EarlyStop, m)
		want[m] = *run
	}
	require.NoError(t, Analyze(r, samples, DefaultFloors()))
	for m, run := range r.Runs {
		w := want[m]
		assert.Equal(t, VerdictWord(w.Verdict.Leak), VerdictWord(run.Verdict.Leak), m)
		assert.True(t, run.Verdict.EarlyStop, "%s: early_stop kept", m)
		assert.Equal(t, w.Verdict.Reason, run.Verdict.Reason, m)
		assert.Equal(t, w.Sequential, run.Sequential, "%s: the looks the run took", m)
	}
}

// TestReanalysisOfAFullRunAppliesNoStop: the same samples in a result that
// records no sequential outcome (a run without --until-verdict) are decided
// on the full fit, with no early stop (negative control).
func TestReanalysisOfAFullRunAppliesNoStop(t *testing.T) {
	r, samples := untilVerdict(t, untilVerdictDirs[1])
	for _, run := range r.Runs {
		run.Sequential = nil
	}
	require.NoError(t, Analyze(r, samples, DefaultFloors()))
	for m, run := range r.Runs {
		assert.Nil(t, run.Sequential, m)
		assert.False(t, run.Verdict.EarlyStop, m)
		assert.NotContains(t, run.Verdict.Reason, "early verdict", m)
	}
}
