package main

import (
	"encoding/csv"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/montecarlo"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats/simulate"
)

func TestReadSamplesCSV(t *testing.T) {
	f, err := os.Open("testdata/samples.csv")
	require.NoError(t, err)
	defer f.Close()
	ss, err := readSamplesCSV(f)
	require.NoError(t, err)
	require.Len(t, ss, 2)
	assert.Equal(t, "fixed", ss[0].Model)
	assert.Equal(t, "leaky", ss[1].Model)
	// Timer samples and the start sample are left out, as the tool's fits
	// leave them out: the file holds 159 fixed and 45 leaky rows, one timer
	// row and one start row each.
	assert.Len(t, ss[0].Lifecycles, 157)
	assert.Len(t, ss[1].Lifecycles, 43)
	for _, s := range ss {
		n := len(s.Lifecycles)
		assert.Greater(t, n, 20)
		assert.Len(t, s.NativeHeap, n)
		assert.Len(t, s.RSS, n)
		assert.Len(t, s.Records, n)
		assert.Len(t, s.RestoredRecords, n) // zeros: the file predates the column
	}
	_, err = readSamplesCSV(strings.NewReader("model,seq\nx,1\n"))
	assert.Error(t, err)
}

// TestRunBootstrap: the real-residual cases on the fixed model of the
// committed test run: a known 11 KiB/lifecycle slope puts the native
// heap's interval above its floor in nearly every run and is never called
// "no leak" (positive control); the same residuals without a slope are
// never called a leak (negative control). The same rates on a full-length
// run: statscheck -residuals.
func TestRunBootstrap(t *testing.T) {
	montecarlo.SkipInShort(t)
	f, err := os.Open("testdata/samples.csv")
	require.NoError(t, err)
	defer f.Close()
	ss, err := readSamplesCSV(f)
	require.NoError(t, err)
	const reps = 30
	cases := simulate.BootstrapSuite(ss[0])
	require.Len(t, cases, 4)
	for _, c := range cases {
		r, err := simulate.RunBootstrap(c, simulate.Robust(), reps, 11)
		require.NoError(t, err)
		t.Logf("%s: %+v", c.Name, r)
		if c.NativeSlope > 0 {
			assert.GreaterOrEqual(t, r.NativeAboveFloor, reps-2, c.Name)
			// The leak rule rests on the native heap; RSS only must not
			// contradict it (it called 0 and 3 of 30 when RSS had to rise
			// significantly on its own).
			assert.GreaterOrEqual(t, r.Leak, reps-3, c.Name)
		} else {
			assert.Zero(t, r.Leak, c.Name)
			assert.Zero(t, r.NativeAboveFloor, c.Name)
		}
		assert.Zero(t, r.FalseCalls, c.Name)
	}
}

// TestReadSamplesCSVCodeRSS: the RSS statscheck -real fits is the code's RSS
// the verdicts read (RSS less runtime_bytes, analysis.SignalValue), not the
// raw RSS, which carries the instrument's own runtime. Shown failing with
// Series.Input("rss") reading RSS.
func TestReadSamplesCSVCodeRSS(t *testing.T) {
	var b strings.Builder
	w := csv.NewWriter(&b)
	require.NoError(t, w.Write(schema.CSVHeader(nil)))
	for i := range 3 {
		s := schema.Sample{Model: "fixed", Seq: i, Trigger: schema.TriggerLifecycle, Lifecycles: int64(i + 1)}
		s.RSS = 100 << 20
		s.RuntimeBytes = int64(10+i) << 20
		require.NoError(t, w.Write(s.CSVRow(nil)))
	}
	w.Flush()
	ss, err := readSamplesCSV(strings.NewReader(b.String()))
	require.NoError(t, err)
	require.Len(t, ss, 1)
	in := ss[0].Input("rss")
	assert.Equal(t, []float64{90 << 20, 89 << 20, 88 << 20}, in.Y, "the code's RSS")
	assert.Equal(t, []float64{100 << 20, 100 << 20, 100 << 20}, ss[0].RSS, "the raw RSS is kept")
}
