package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResultJSONKeepsEveryField: every result.json in the repository's
// testdata reads into a Result and writes back with every field it had, under
// the same name and with the same value (files written by older versions lack
// some fields; those are added as zero values, nothing else changes).
func TestResultJSONKeepsEveryField(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "results", "testdata", "*", "result.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p)), func(t *testing.T) {
			orig, err := os.ReadFile(p)
			require.NoError(t, err)
			r, err := Parse(orig)
			require.NoError(t, err)
			again, err := json.Marshal(r)
			require.NoError(t, err)
			var want, got any
			require.NoError(t, json.Unmarshal(orig, &want))
			require.NoError(t, json.Unmarshal(again, &got))
			assertSubset(t, "", want, got)
		})
	}
}

// assertSubset checks that every key of want is in got with the same value.
func assertSubset(t *testing.T, path string, want, got any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !assert.True(t, ok, "%s: not an object", path) {
			return
		}
		for k, v := range w {
			gv, ok := g[k]
			if assert.True(t, ok, "%s.%s: lost", path, k) {
				assertSubset(t, path+"."+k, v, gv)
			}
		}
	case []any:
		g, ok := got.([]any)
		if assert.True(t, ok, "%s: not an array", path) && assert.Len(t, g, len(w), path) {
			for i := range w {
				assertSubset(t, path, w[i], g[i])
			}
		}
	default:
		assert.Equal(t, want, got, path)
	}
}

// TestRunErrorIsOneField: a run's error is written once, as "error", and read
// back into the same field.
func TestRunErrorIsOneField(t *testing.T) {
	b, err := json.Marshal(Run{Summary: Summary{Model: "leaky", Error: "child crashed"}})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, "child crashed", m["error"])
	var back Run
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "child crashed", back.Error)
}
