//go:build cgo

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/results"
)

// TestRunFormatBMF: a real run with --format bmf prints only the BMF document
// on stdout (valid JSON, one benchmark per model, slopes with bounds), writes
// the same bytes to bmf.json, and `report --format bmf` on the result prints
// them again.
func TestRunFormatBMF(t *testing.T) {
	// It asserts the BMF document's shape (one benchmark per model, each bound on its side of the value), not what
	// the slopes are: it shares the cores.
	sharesTheCores(t)
	out := filepath.Join(t.TempDir(), "run")
	stdout, stderr, code := runCLI(t, "run", "--scenario", "smoke", "--lifecycles", "60", "--out", out,
		"--state-dir", stateRoot(t), "--format", "bmf")
	require.Equal(t, 0, code, "stderr: %s", stderr)
	var doc results.BMF
	require.NoError(t, json.Unmarshal([]byte(stdout), &doc), "stdout is the BMF document alone:\n%s", stdout)
	require.Len(t, doc, 2)
	bounded := 0
	for _, m := range []string{"leaky", "fixed"} {
		bench, ok := doc["rocksleak/smoke/"+m]
		require.True(t, ok, m)
		slope, ok := bench["native-heap-bytes-per-lifecycle"]
		require.True(t, ok, m)
		if slope.LowerValue == nil {
			continue // too few samples for an interval in a run this short
		}
		bounded++
		assert.LessOrEqual(t, *slope.LowerValue, slope.Value)
		assert.LessOrEqual(t, slope.Value, *slope.UpperValue)
	}
	assert.Positive(t, bounded, "at least one slope carries its interval")
	assert.Contains(t, stderr, "results: "+out, "the human summary goes to stderr")
	file, err := os.ReadFile(filepath.Join(out, "bmf.json"))
	require.NoError(t, err)
	assert.Equal(t, stdout, string(file))

	again, errOut, code := runCLI(t, "report", "--format", "bmf", filepath.Join(out, "result.json"))
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, stdout, again)
}
