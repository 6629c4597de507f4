package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// TestReanalyzeKeepsTheEarlyStop: rocksleak report --reanalyze on a real
// --until-verdict result (analysis/testdata/until-verdict: rocksleak run
// --models leaky,fixed --until-verdict --lifecycles 1500 --seed 3) rewrites
// result.json with the verdicts the run gave, early_stop and the looks kept.
func TestReanalyzeKeepsTheEarlyStop(t *testing.T) {
	src := filepath.Join("..", "..", "analysis", "testdata", "until-verdict")
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(src, "result.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644))
	f, err := os.Open(filepath.Join(src, "samples.csv.gz"))
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	csv, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "samples.csv"), csv, 0o644))
	before, err := schema.Parse(b)
	require.NoError(t, err)

	_, stderr, code := runCLI(t, "report", "--reanalyze", filepath.Join(dir, "result.json"))
	require.Zero(t, code, stderr)
	after, err := schema.Read(filepath.Join(dir, "result.json"))
	require.NoError(t, err)
	for m, run := range before.Runs {
		got := after.Runs[m]
		require.NotNil(t, got.Verdict, m)
		assert.True(t, got.Verdict.EarlyStop, "%s: early_stop kept", m)
		assert.Equal(t, run.Verdict.Leak, got.Verdict.Leak, m)
		assert.Equal(t, run.Verdict.Reason, got.Verdict.Reason, m)
		assert.Equal(t, run.Sequential, got.Sequential, m)
	}
}
