package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/golden"
)

// TestTableGolden renders the table of a real run of scripts/bench.sh.
func TestTableGolden(t *testing.T) {
	var out, errOut bytes.Buffer
	require.NoError(t, run(nil, &out, &errOut, []string{filepath.Join("testdata", "bench.txt")}))
	golden.Check(t, filepath.Join("testdata", "table.golden"), out.Bytes())
	assert.Empty(t, errOut.String())
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"a", "b"}, {"-goal", "0"}, {"-nosuch"}} {
		err := run(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, args)
		assert.ErrorIs(t, err, errUsage, "args %q", args)
	}
	err := run(strings.NewReader("PASS\n"), &bytes.Buffer{}, &bytes.Buffer{}, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, errUsage)
	assert.Contains(t, err.Error(), "no BenchmarkLifecycle results")
}

func TestParse(t *testing.T) {
	in := `goos: linux
pkg: example.com/a
BenchmarkLifecycle/bare-2   	     100	  16000000 ns/op	        12.5 B/lifecycle	    4035 B/op
BenchmarkX
BenchmarkLifecycle/paired   	      10	  32000000 ns/op	         1.034 harness/bare
pkg: example.com/b
BenchmarkSampleCost/open=8-16   	 1000	     70000 ns/op
PASS
ok  	example.com/b	1.0s
`
	got, err := Parse(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, []Result{
		{Pkg: "example.com/a", Name: "BenchmarkLifecycle/bare", N: 100,
			Values: map[string]float64{"ns/op": 16e6, "B/lifecycle": 12.5, "B/op": 4035}},
		{Pkg: "example.com/a", Name: "BenchmarkLifecycle/paired", N: 10,
			Values: map[string]float64{"ns/op": 32e6, "harness/bare": 1.034}},
		{Pkg: "example.com/b", Name: "BenchmarkSampleCost/open=8", N: 1000,
			Values: map[string]float64{"ns/op": 70000}},
	}, got)
}

func TestParseErrors(t *testing.T) {
	for _, line := range []string{
		"BenchmarkA-2 10 100",
		"BenchmarkA-2 10 x ns/op",
	} {
		_, err := Parse(strings.NewReader("pkg: p\n" + line + "\n"))
		require.ErrorIs(t, err, ErrParse, line)
		assert.Contains(t, err.Error(), "line 2")
	}
}

func TestStatOf(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want Stat
	}{
		{nil, Stat{}},
		{[]float64{3}, Stat{Median: 3, Min: 3, Max: 3, N: 1}},
		{[]float64{5, 1, 3}, Stat{Median: 3, Min: 1, Max: 5, N: 3}},
		{[]float64{4, 1, 2, 10}, Stat{Median: 3, Min: 1, Max: 10, N: 4}},
	} {
		assert.Equal(t, tc.want, statOf(tc.in), "%v", tc.in)
	}
	assert.InDelta(t, 0.5, Stat{Median: 10, Min: 5, Max: 12, N: 3}.Deviation(), 1e-12)
	assert.Zero(t, Stat{}.Deviation())
}

func lifecycleResults(bareNs, fixedNs float64, paired ...float64) []Result {
	rs := []Result{
		{Name: "BenchmarkLifecycle/bare", Values: map[string]float64{"ns/op": bareNs, "cpu-ns/lifecycle": bareNs}},
		{Name: "BenchmarkLifecycle/harness-fixed", Values: map[string]float64{"ns/op": fixedNs, "cpu-ns/lifecycle": bareNs}},
	}
	for _, r := range paired {
		rs = append(rs, Result{Name: "BenchmarkLifecycle/paired", Values: map[string]float64{
			"harness/bare": r, "bare-ns/lifecycle": 100, "harness-ns/lifecycle": 100 * r}})
	}
	return rs
}

// TestVerdictBasis: the paired ratio decides when there is one; else the
// separate medians do.
func TestVerdictBasis(t *testing.T) {
	for _, tc := range []struct {
		name      string
		results   []Result
		ratio     float64
		met       bool
		wantBasis string
	}{
		{"paired decides over noisy separate runs", lifecycleResults(100, 140, 1.02, 1.04, 1.12), 1.04, true, "paired"},
		{"paired over the goal", lifecycleResults(100, 100, 1.2, 1.15, 1.3), 1.2, false, "paired"},
		{"separate runs without paired", lifecycleResults(100, 105), 1.05, true, "separate"},
		{"separate runs over the goal", lifecycleResults(100, 111), 1.11, false, "separate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := Compute(tc.results, 1.10)
			require.NoError(t, err)
			require.NotNil(t, tab.Verdict)
			assert.InDelta(t, tc.ratio, tab.Verdict.Ratio, 1e-9)
			assert.Equal(t, tc.met, tab.Verdict.Met)
			assert.Contains(t, tab.Verdict.Basis, tc.wantBasis)
		})
	}
}

func TestComputeWarnsOnFewCounts(t *testing.T) {
	tab, err := Compute(lifecycleResults(100, 101, 1.01), 1.10)
	require.NoError(t, err)
	require.Len(t, tab.Warnings, 1)
	assert.Contains(t, tab.Warnings[0].Error(), "Lifecycle/bare (1)")
	assert.Contains(t, tab.Warnings[0].Error(), "Lifecycle/paired (1)")
}
