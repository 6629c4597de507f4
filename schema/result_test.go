package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
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

// TestFromOutputKeepsEachRunsRocksDB: a run mixing the engines records each
// child's RocksDB, and the provenance names both, in run order.
func TestFromOutputKeepsEachRunsRocksDB(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	out := &Output{Runs: []*ModelRun{
		{Model: "leaky", Info: ChildInfo{PID: 1, RocksDBVersion: "7.8.3", Allocator: spec.AllocatorGlibc}},
		{Model: "kafka-4.3.0", Info: ChildInfo{PID: 2, RocksDBVersion: "10.1.3", Allocator: spec.AllocatorGlibc}},
		{Model: "fixed", Info: ChildInfo{PID: 3, RocksDBVersion: "7.8.3", Allocator: spec.AllocatorGlibc}},
	}}
	r := FromOutput(out, sc, Provenance{})
	assert.Equal(t, "7.8.3, 10.1.3", r.Provenance.RocksDBVersion)
	assert.Equal(t, "10.1.3", r.Runs["kafka-4.3.0"].RocksDBVersion)
	assert.Equal(t, "7.8.3", r.Runs["fixed"].RocksDBVersion)
	one := FromOutput(&Output{Runs: out.Runs[:1]}, sc, Provenance{})
	assert.Equal(t, "7.8.3", one.Provenance.RocksDBVersion, "one engine: one version, as before")
}
