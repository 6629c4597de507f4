package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGateAppendsStepSummary: with $GITHUB_STEP_SUMMARY set, gate appends its
// Markdown report (the same bytes --format markdown prints) to that file,
// keeping what earlier steps wrote, whatever --format prints on stdout, and
// with the gate's exit status unchanged; unset, it writes no file.
func TestGateAppendsStepSummary(t *testing.T) {
	dir := t.TempDir()
	both := writeGateResult(t, dir, "both", 20616, nil, leakyGateRun(), fixedGateRun())
	args := []string{"--baseline", both, "--candidate", both, "--baseline-model", "fixed", "--candidate-model", "leaky"}
	markdown, _, code := gateCLI(t, append(args, "--format", "markdown")...)
	require.Equal(t, 1, code)
	require.Contains(t, markdown, "### rocksleak gate")

	summary := filepath.Join(dir, "step_summary.md")
	require.NoError(t, os.WriteFile(summary, []byte("## earlier step\n"), 0o644))
	t.Setenv(stepSummaryEnv, summary)
	stdout, _, code := gateCLI(t, append(args, "--format", "text")...)
	assert.Equal(t, 1, code, "the gate still fails")
	assert.NotContains(t, stdout, "### rocksleak gate", "stdout keeps the asked format")
	got, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Equal(t, "## earlier step\n"+markdown, string(got))

	_, _, code = gateCLI(t, append(args, "--format", "json")...)
	assert.Equal(t, 1, code)
	got, err = os.ReadFile(summary)
	require.NoError(t, err)
	assert.Equal(t, "## earlier step\n"+markdown+markdown, string(got), "appended, never truncated")

	t.Setenv(stepSummaryEnv, "")
	_, _, code = gateCLI(t, append(args, "--format", "text")...)
	assert.Equal(t, 1, code)
	again, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Equal(t, string(got), string(again), "empty: nothing appended")

	t.Setenv(stepSummaryEnv, filepath.Join(dir, "no-such-dir", "s.md"))
	_, stderr, code := gateCLI(t, args...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, stepSummaryEnv, "an unwritable summary file is an error naming the variable")
}
