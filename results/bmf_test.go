package results

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/golden"
)

// TestBMF: one benchmark per model with the Total slopes and their 95%
// intervals as lower/upper values, in the shape of https://bencher.dev/bmf.json
// (every measure an object with a numeric "value").
func TestBMF(t *testing.T) {
	r := readTestResult(t, "smoke")
	js, err := BMFJSON(r)
	require.NoError(t, err)
	golden.Check(t, filepath.Join("testdata", "smoke", "bmf.json"), js)

	var doc map[string]map[string]map[string]any
	require.NoError(t, json.Unmarshal(js, &doc))
	require.Len(t, doc, len(r.Models))
	for _, m := range r.Models {
		bench, ok := doc["rocksleak/smoke/"+m]
		require.True(t, ok, m)
		for slug, metric := range bench {
			_, ok := metric["value"].(float64)
			assert.True(t, ok, "%s %s: value must be a number", m, slug)
			for k := range metric {
				assert.Contains(t, []string{"value", "lower_value", "upper_value"}, k)
			}
		}
		total := r.Runs[m].Fits[analysis.SignalNativeHeap].Total
		got := bench["native-heap-bytes-per-lifecycle"]
		assert.Equal(t, total.BytesPerLifecycle, got["value"])
		assert.Equal(t, total.CI95[0], got["lower_value"])
		assert.Equal(t, total.CI95[1], got["upper_value"])
		assert.LessOrEqual(t, got["lower_value"], got["value"])
		assert.LessOrEqual(t, got["value"], got["upper_value"])
	}
}

// TestBenchLinesRoundTrip: the lines BenchLines writes read back with
// benchfmt's reader (benchstat's) to the same names, iterations and values.
func TestBenchLinesRoundTrip(t *testing.T) {
	r := readTestResult(t, "smoke")
	out := BenchLines(r)
	golden.Check(t, filepath.Join("testdata", "smoke", "bench.txt"), []byte(out))
	br := benchfmt.NewReader(bytes.NewReader([]byte(out)), "bench.txt")
	var names []string
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		require.True(t, ok, "%v", br.Result())
		names = append(names, string(res.Name.Full()))
		m := r.Models[len(names)-1]
		assert.EqualValues(t, r.Runs[m].Lifecycles, res.Iters)
		assert.Equal(t, "rocksleak/smoke", res.GetConfig("pkg"))
		v, ok := res.Value("native-B/lifecycle")
		require.True(t, ok)
		assert.InDelta(t, r.Runs[m].Fits[analysis.SignalNativeHeap].Total.BytesPerLifecycle, v, 0.5)
	}
	require.NoError(t, br.Err())
	assert.Equal(t, []string{"Lifecycle/smoke/leaky", "Lifecycle/smoke/fixed"}, names)
}
