package gate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestDefaultPolicyParses(t *testing.T) {
	p, err := ParsePolicy(DefaultPolicyYAML())
	require.NoError(t, err)
	var names []string
	for _, c := range p.Checks {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"rss_growth_per_million_records", "native_growth_per_lifecycle", "restore_time",
		"task_errors", "records_lost", "consumer_lag"}, names)
	assert.Equal(t, p, DefaultPolicy())
	// The source document's factors.
	assert.Equal(t, 1.2, p.Checks[0].Factor)
	assert.Equal(t, 1.2, p.Checks[1].Factor)
	assert.Equal(t, 1.25, p.Checks[2].Factor)
	assert.Equal(t, "restore_time_p50", p.Checks[2].Metric)
	assert.Equal(t, OpEqual, p.Checks[3].Op)
	assert.Equal(t, 0.0, *p.Checks[3].Value)
	assert.Equal(t, OpMax, p.Checks[5].Op)
	assert.Equal(t, 120e9, *p.Checks[5].Value, "consumer lag ≤ 2 minutes, in nanoseconds")
}

func TestParsePolicyBadFieldNamesIt(t *testing.T) {
	const good = "  - name: a\n    metric: task_errors\n    op: equal\n    value: 0\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"empty document", "", []string{"empty"}},
		{"no checks", "checks: []\n", []string{"checks", "at least one"}},
		{"unknown top-level field", "checks:\n" + good + "gates: 1\n", []string{`unknown field "gates"`, "checks"}},
		{"unknown check field", "checks:\n  - name: a\n    metric: task_errors\n    op: equal\n    value: 0\n    limit: 3\n",
			[]string{`unknown field "limit"`, "factor, floor, value"}},
		{"missing name", "checks:\n  - metric: task_errors\n    op: equal\n    value: 0\n", []string{"checks[0]", "name: missing"}},
		{"blank name", "checks:\n  - name: ' '\n    metric: task_errors\n    op: equal\n    value: 0\n", []string{"name: missing"}},
		{"duplicate names", "checks:\n" + good + good, []string{"checks[1] (a)", "name", "duplicates checks[0]"}},
		{"missing metric", "checks:\n  - name: a\n    op: equal\n    value: 0\n", []string{"(a): metric: missing"}},
		{"unknown metric", "checks:\n  - name: a\n    metric: heap_vibes\n    op: max\n    value: 1\n",
			[]string{"metric", `unknown metric "heap_vibes"`, "native_growth_per_lifecycle"}},
		{"missing op", "checks:\n  - name: a\n    metric: task_errors\n    value: 0\n", []string{"op: missing"}},
		{"unknown op", "checks:\n  - name: a\n    metric: task_errors\n    op: less\n    value: 0\n", []string{"op", `unknown op "less"`}},
		{"negative factor", "checks:\n  - name: a\n    metric: native_growth_per_lifecycle\n    op: ratio\n    factor: -1.2\n",
			[]string{"(a): factor", "negative"}},
		{"zero factor", "checks:\n  - name: a\n    metric: native_growth_per_lifecycle\n    op: ratio\n", []string{"factor", "missing or 0"}},
		{"NaN factor", "checks:\n  - name: a\n    metric: native_growth_per_lifecycle\n    op: ratio\n    factor: .nan\n",
			[]string{"factor", "not a finite number"}},
		{"infinite floor", "checks:\n  - name: a\n    metric: native_growth_per_lifecycle\n    op: ratio\n    factor: 1\n    floor: .inf\n",
			[]string{"floor", "not a finite number"}},
		{"negative floor", "checks:\n  - name: a\n    metric: native_growth_per_lifecycle\n    op: ratio\n    factor: 1.2\n    floor: -1\n",
			[]string{"floor", "negative"}},
		{"value on ratio", "checks:\n  - name: a\n    metric: native_growth_per_lifecycle\n    op: ratio\n    factor: 1.2\n    value: 3\n",
			[]string{"(a): value", "not value"}},
		{"missing value", "checks:\n  - name: a\n    metric: task_errors\n    op: max\n", []string{"(a): value: missing"}},
		{"factor on max", "checks:\n  - name: a\n    metric: task_errors\n    op: max\n    value: 1\n    factor: 2\n",
			[]string{"factor", "only a ratio"}},
		{"floor on equal", "checks:\n  - name: a\n    metric: task_errors\n    op: equal\n    value: 1\n    floor: 2\n",
			[]string{"floor", "only a ratio"}},
		{"equal on an estimate", "checks:\n  - name: a\n    metric: rss_growth_per_lifecycle\n    op: equal\n    value: 0\n",
			[]string{"(a): op", "estimate", "use max"}},
		{"wrong type", "checks:\n  - name: a\n    metric: task_errors\n    op: max\n    value: lots\n", []string{"line 5", "lots"}},
		{"not a list", "checks: {name: a}\n", []string{"line 1"}},
		{"malformed", "checks: [\n", []string{"line"}},
		{"two documents", "checks:\n" + good + "---\nchecks:\n" + good, []string{"one YAML document"}},
		{"every error reported", "checks:\n  - name: a\n    metric: nope\n    op: ratio\n    factor: -1\n    floor: -2\n",
			[]string{"metric", "factor", "floor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePolicy([]byte(tc.yaml))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidPolicy)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestParsePolicyGood(t *testing.T) {
	p, err := ParsePolicy([]byte(`
checks:
  - name: native
    metric: native_growth_per_lifecycle
    op: ratio
    factor: 1.5
    floor: 4096
  - name: fds
    metric: fd_growth_per_lifecycle
    op: max
    value: 0.01
  - name: pinned
    metric: pinned_dbs
    op: equal
    value: 0
`))
	require.NoError(t, err)
	require.Len(t, p.Checks, 3)
	assert.Equal(t, Check{Name: "native", Metric: "native_growth_per_lifecycle", Op: OpRatio, Factor: 1.5, Floor: 4096}, p.Checks[0])
	assert.Equal(t, 0.01, *p.Checks[1].Value)
}

func TestLoadPolicy(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadPolicy(filepath.Join(dir, "missing.yaml"))
	assert.ErrorIs(t, err, ErrInvalidPolicy)
	assert.Contains(t, err.Error(), "missing.yaml")

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("checks:\n  - name: x\n    metric: nope\n    op: max\n    value: 1\n"), 0o644))
	_, err = LoadPolicy(bad)
	assert.ErrorIs(t, err, ErrInvalidPolicy)
	assert.Contains(t, err.Error(), "bad.yaml")
	assert.Contains(t, err.Error(), `"nope"`)

	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, DefaultPolicyYAML(), 0o644))
	p, err := LoadPolicy(good)
	require.NoError(t, err)
	assert.Equal(t, DefaultPolicy(), p)
}

// A policy written back as YAML parses to the same policy.
func TestPolicyRoundTrip(t *testing.T) {
	p := DefaultPolicy()
	b, err := yaml.Marshal(p)
	require.NoError(t, err)
	back, err := ParsePolicy(b)
	require.NoError(t, err)
	assert.Equal(t, p, back)
	assert.False(t, errors.Is(back.Validate(), ErrInvalidPolicy))
}
