package results

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/schema"
)

func TestCompareGolden(t *testing.T) {
	a, b := readTestResult(t, "smoke"), readTestResult(t, "smoke-seed7")
	md, err := CompareMarkdown(a, b)
	require.NoError(t, err)
	golden.Check(t, filepath.Join("testdata", "compare", "smoke-vs-seed7.md"), md)
	txt, err := CompareText(a, b)
	require.NoError(t, err)
	golden.Check(t, filepath.Join("testdata", "compare", "smoke-vs-seed7.txt"), []byte(txt))

	// The seeds differ, so do the scenarios' digests: a warning, not an error.
	assert.Contains(t, string(md), "> **Warning:** the scenarios differ")
	assert.Contains(t, txt, "warning: the scenarios differ")
}

func TestCompareDifferenceIsBMinusA(t *testing.T) {
	a, b := readTestResult(t, "smoke"), readTestResult(t, "smoke-seed7")
	c, err := compare(a, b)
	require.NoError(t, err)
	require.Len(t, c.models, 2)
	for _, mc := range c.models {
		require.Len(t, mc.slopes, 2)
		for _, sc := range mc.slopes {
			require.NotNil(t, sc.diff)
			fa, fb := a.Runs[mc.model].Fits[sc.signal].Total, b.Runs[mc.model].Fits[sc.signal].Total
			assert.InDelta(t, fb.PerLifecycle.Value-fa.PerLifecycle.Value, sc.diff.Value, 1e-9)
			assert.True(t, sc.diff.Valid)
			assert.Less(t, sc.diff.Low, sc.diff.Value)
			assert.Greater(t, sc.diff.High, sc.diff.Value)
			// The interval of a difference is wider than either slope's.
			assert.Greater(t, sc.diff.High-sc.diff.Low, fa.PerLifecycle.High-fa.PerLifecycle.Low)
		}
	}
}

func TestCompareSameScenarioNoWarning(t *testing.T) {
	a := readTestResult(t, "smoke")
	txt, err := CompareText(a, readTestResult(t, "smoke"))
	require.NoError(t, err)
	assert.NotContains(t, txt, "warning")
	assert.Contains(t, txt, "verdict A")
}

func TestCompareWarnsOnPartialRuns(t *testing.T) {
	a, b := readTestResult(t, "smoke"), readTestResult(t, "smoke")
	b.Status = schema.StatusInterrupted
	txt, err := CompareText(a, b)
	require.NoError(t, err)
	assert.Contains(t, txt, "warning: B is INTERRUPTED")
}

func TestCompareOnlyCommonModels(t *testing.T) {
	a, b := readTestResult(t, "attribution"), readTestResult(t, "smoke")
	md, err := CompareMarkdown(a, b)
	require.NoError(t, err)
	assert.Contains(t, string(md), "| leaky | native heap |")
	assert.NotContains(t, string(md), "| options-fix | native heap |")
	assert.Contains(t, string(md), "Not compared: only in A: options-fix, finally-fix; only in B: —.")

	// A model without fits (its run failed) is compared with dashes.
	b.Runs["fixed"].Fits = nil
	b.Runs["fixed"].Verdict = nil
	txt, err := CompareText(a, b)
	require.NoError(t, err)
	assert.Contains(t, txt, "not analysed")
}

func TestCompareNothingInCommon(t *testing.T) {
	a, b := readTestResult(t, "smoke"), readTestResult(t, "smoke")
	b.Models = []string{"options-fix"}
	b.Runs = map[string]*schema.Run{"options-fix": a.Runs["leaky"]}
	_, err := CompareMarkdown(a, b)
	assert.ErrorIs(t, err, ErrNothingToCompare)
	_, err = CompareText(a, b)
	assert.ErrorIs(t, err, ErrNothingToCompare)
}
