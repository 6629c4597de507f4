package gate

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/golden"
)

// goldenReport gates a slightly worse fixed run (a slope above its limit but
// not significantly, two task errors) against a fixed baseline: every
// outcome appears.
func goldenReport(t *testing.T) *Report {
	base := resultOf(t, 1, fixedRun())
	leaky := runOf("leaky", est(29_666, 28_967, 30_364), est(208e6, 195e6, 221e6))
	leaky.TaskErrors = 10
	leaky.Restore.P50Ns = 46_764_564
	noisy := runOf("fixed", est(3_200, 1_800, 4_600), est(60<<20, 40<<20, 80<<20))
	noisy.TaskErrors = 2
	cand := resultOf(t, 2, leaky, noisy)
	base.Provenance.GitCommit, cand.Provenance.GitCommit = "09a4552c0ffee", "5eed5eed5eed"
	p := DefaultPolicy()
	p.Checks = append(p.Checks, Check{Name: "native_abs", Metric: "native_growth_per_lifecycle", Op: OpMax, Value: f64(2048)})
	rep, err := Evaluate(p, base, cand, Options{BaselineModel: "fixed", CandidateModel: "fixed"})
	require.NoError(t, err)
	rep.Baseline.Path, rep.Candidate.Path = "base/result.json", "cand/result.json"
	// Digests change whenever the catalogue does; the renderings need not.
	rep.Baseline.ScenarioDigest, rep.Candidate.ScenarioDigest = "b45e", "ca4d"
	rep.Baseline.WorkloadDigest, rep.Candidate.WorkloadDigest = "0123456789abcdef", "0123456789abcdef"
	return rep
}

func TestRenderGolden(t *testing.T) {
	rep := goldenReport(t)
	require.Equal(t, Fail, rep.Outcome)
	for _, f := range Formats() {
		render, err := RendererFor(f)
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, render(&buf, rep))
		golden.Check(t, filepath.Join("testdata", "report."+map[string]string{"text": "txt", "json": "json", "markdown": "md"}[f]), buf.Bytes())
	}
	_, err := RendererFor("html")
	assert.ErrorContains(t, err, `unknown format "html"`)
}

// The JSON is for machines: stable field names, raw units.
func TestJSONFields(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf, goldenReport(t)))
	var got struct {
		Outcome string `json:"outcome"`
		Checks  []struct {
			Name      string    `json:"name"`
			Unit      string    `json:"unit"`
			Limit     float64   `json:"limit"`
			Outcome   string    `json:"outcome"`
			Baseline  *Quantity `json:"baseline"`
			Candidate *Quantity `json:"candidate"`
		} `json:"checks"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
	assert.Equal(t, "FAIL", got.Outcome)
	require.NotEmpty(t, got.Checks)
	c := got.Checks[1]
	assert.Equal(t, "native_growth_per_lifecycle", c.Name)
	assert.Equal(t, UnitBytesPerLifecycle, c.Unit)
	assert.Equal(t, 2548.0, c.Limit, "500 B + 2048 B floor, in bytes")
	assert.Equal(t, "WARN", c.Outcome)
	assert.Equal(t, Quantity{Value: 3200, Low: 1800, High: 4600, Interval: true}, *c.Candidate)
}
