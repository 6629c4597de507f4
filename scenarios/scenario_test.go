package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestCatalogueHasRequiredEntries(t *testing.T) {
	assert.Equal(t, []string{
		"attribution", "bounded-memory", "calibration", "eos-v2-cascade", "kafka-20616", "kv-clean",
		"migrating-store", "no-safety-net", "rehearsal", "restore-churn", "restore-peak", "scale", "smoke",
	}, Names())
	assert.Contains(t, Names(), DefaultName())
	assert.IsIncreasing(t, Names())
}

func TestCatalogueEntriesLoadAndValidate(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			s, err := Get(name)
			require.NoError(t, err)
			require.NoError(t, s.Validate())
			assert.Equal(t, name, s.Name, "the file name and the name field agree")
			assert.NotEmpty(t, strings.TrimSpace(s.Description), "every entry says what it shows")

			s2, canonical, err := Load(name)
			require.NoError(t, err)
			assert.Equal(t, s, s2)
			s3, err := Parse(canonical)
			require.NoError(t, err)
			assert.Equal(t, s, s3, "the canonical YAML parses back to the scenario")

			// Catalogue files spell out every field, so each is a complete record.
			data, err := catalogue.ReadFile("catalogue/" + name + ".yaml")
			require.NoError(t, err)
			var raw map[string]any
			require.NoError(t, yaml.Unmarshal(data, &raw))
			var keys []string
			for k := range raw {
				keys = append(keys, k)
			}
			assert.ElementsMatch(t, Keys(), keys)
		})
	}
}

func TestGetUnknown(t *testing.T) {
	_, err := Get("kafka-99999")
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), `"kafka-99999"`)
	for _, n := range Names() {
		assert.Contains(t, err.Error(), n, "the error lists the known names")
	}
}

func TestGetReturnsIndependentCopies(t *testing.T) {
	a, err := Get("smoke")
	require.NoError(t, err)
	a.Models[0] = "mutated"
	b, err := Get("smoke")
	require.NoError(t, err)
	assert.Equal(t, "leaky", b.Models[0])
}

func TestLoadUserFileTakesDefaults(t *testing.T) {
	p := writeFile(t, "my-run.yaml", "store: kv\ntasks: 3\nrebalance_every_steps: 2\nlifecycles: 40\n")
	s, canonical, err := Load(p)
	require.NoError(t, err)
	require.NoError(t, s.Validate())

	want := Default()
	want.Name = "my-run"
	want.Store = StoreKV
	want.Tasks = 3
	want.RebalanceEverySteps = 2
	want.Lifecycles = 40
	assert.Equal(t, want, s)

	back, err := Parse(canonical)
	require.NoError(t, err)
	assert.Equal(t, s, back)
}

func TestLoadUserFileRoundTrip(t *testing.T) {
	orig, err := Get(DefaultName())
	require.NoError(t, err)
	orig.Name = "custom"
	orig.Description = "a: colon, a \"quote\" and\nnewlines"
	orig.Duration = Duration(90 * time.Second)
	orig.CloseFailureRate = 0.125
	p := writeFile(t, "whatever.yml", string(orig.CanonicalYAML()))

	got, canonical, err := Load(p)
	require.NoError(t, err)
	assert.Equal(t, orig, got, "the name field wins over the file name")
	assert.Equal(t, orig.Digest(), got.Digest())
	assert.Equal(t, orig.CanonicalYAML(), canonical)
	assert.Contains(t, string(canonical), "duration: 1m30s\n")
}

func TestLoadPathDetection(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "smoke") // no extension, exists: a path, not the catalogue entry
	require.NoError(t, os.WriteFile(plain, []byte("lifecycles: 7\n"), 0o644))
	s, _, err := Load(plain)
	require.NoError(t, err)
	assert.Equal(t, 7, s.Lifecycles)
	assert.Equal(t, "smoke", s.Name)

	_, _, err = Load(filepath.Join(dir, "missing.yaml"))
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "missing.yaml")

	_, _, err = Load("./smoke-typo")
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "smoke-typo", "a relative path is read as a file")

	_, _, err = Load("smoke-typo")
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "unknown scenario")
}

func TestLoadNameFromAwkwardFileName(t *testing.T) {
	p := writeFile(t, "My Run (2).yaml", "lifecycles: 5\n")
	s, _, err := Load(p)
	require.NoError(t, err)
	assert.Equal(t, "My-Run--2-", s.Name)
	assert.NoError(t, s.Validate())
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"unknown field", "name: x\nlifecycles: 5\nclose_failure_ratio: 0.1\n", []string{"line 3", `unknown field "close_failure_ratio"`, "close_failure_rate"}},
		{"wrong type", "name: x\ntasks: many\n", []string{"line 2", "many", "int"}},
		{"list for a number", "tasks: [1, 2]\n", []string{"line 1"}},
		{"bare number duration", "duration: 30\n", []string{"line 1", `duration: "30" has no unit`}},
		{"bad duration", "duration: soon\n", []string{"line 1", "soon"}},
		{"map duration", "duration: {s: 1}\n", []string{"line 1", "duration must be a string"}},
		{"nan rate", "close_failure_rate: .nan\n", []string{"close_failure_rate", "not a finite number"}},
		{"inf share", "rebalance_tasks: .inf\n", []string{"rebalance_tasks", "not a finite number"}},
		{"empty", "", []string{"empty"}},
		{"comment only", "# nothing\n", []string{"empty"}},
		{"two documents", "lifecycles: 1\n---\nlifecycles: 2\n", []string{"one YAML document"}},
		{"not a mapping", "- a\n- b\n", []string{"line 1"}},
		{"syntax", "name: [unclosed\n", []string{"yaml"}},
		{"duplicate key", "tasks: 1\ntasks: 2\n", []string{"tasks", "already defined"}},
		{"too large", "description: " + strings.Repeat("x", MaxFileBytes) + "\n", []string{"larger than"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalid)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}

			p := writeFile(t, "bad.yaml", tt.yaml)
			_, _, err = Load(p)
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), p, "file errors name the file")
		})
	}
}

func TestDurationEncoding(t *testing.T) {
	type wrap struct {
		D Duration `yaml:"d" json:"d"`
	}
	w := wrap{D: Duration(1500 * time.Millisecond)}
	y, err := yaml.Marshal(w)
	require.NoError(t, err)
	assert.Equal(t, "d: 1.5s\n", string(y))
	j, err := json.Marshal(w)
	require.NoError(t, err)
	assert.JSONEq(t, `{"d":"1.5s"}`, string(j))

	var back wrap
	require.NoError(t, yaml.Unmarshal(y, &back))
	assert.Equal(t, w, back)
	back = wrap{}
	require.NoError(t, json.Unmarshal(j, &back))
	assert.Equal(t, w, back)

	assert.Error(t, json.Unmarshal([]byte(`{"d":30}`), &back))
	assert.Error(t, json.Unmarshal([]byte(`{"d":"30"}`), &back))
}

func TestJSONRoundTrip(t *testing.T) {
	s, err := Get("eos-v2-cascade")
	require.NoError(t, err)
	j, err := json.Marshal(s)
	require.NoError(t, err)
	var back Scenario
	require.NoError(t, json.Unmarshal(j, &back))
	assert.Equal(t, s, back)
}

func TestYAMLAndJSONTagsAgree(t *testing.T) {
	rt := reflect.TypeFor[Scenario]()
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	for i := range rt.NumField() {
		f := rt.Field(i)
		assert.Equal(t, f.Tag.Get("yaml"), f.Tag.Get("json"), f.Name)
		assert.Regexp(t, snake, f.Tag.Get("yaml"), f.Name)
	}
	assert.Len(t, Keys(), rt.NumField())
}

func TestDigest(t *testing.T) {
	s, err := Get(DefaultName())
	require.NoError(t, err)
	d := s.Digest()
	assert.Regexp(t, `^[0-9a-f]{64}$`, d)
	assert.Equal(t, d, s.Digest(), "stable across calls")
	again, err := Get(DefaultName())
	require.NoError(t, err)
	assert.Equal(t, d, again.Digest(), "stable across loads")
	other, err := Get("no-safety-net")
	require.NoError(t, err)
	assert.NotEqual(t, d, other.Digest())

	// The derived segment interval is resolved: spelling it out is the same workload.
	explicit := s
	explicit.SegmentIntervalMs = s.SegmentInterval()
	assert.Equal(t, d, explicit.Digest())

	// A nil and an empty model list are the same (invalid) scenario.
	a, b := s, s
	a.Models, b.Models = nil, []string{}
	assert.Equal(t, a.Digest(), b.Digest())
}

// Every field, changed alone, changes the digest.
func TestDigestChangesWithEveryField(t *testing.T) {
	base, err := Get(DefaultName())
	require.NoError(t, err)
	change := map[string]string{
		"name": "other", "description": "other", "models": "fixed,leaky", "store": "kv",
		"tasks": "5", "stores_per_task": "1", "retention_ms": "180000", "segment_interval_ms": "30000",
		"additional_retention_ms": "3600000", "restore_batch_records": "500",
		"step_ms": "10000", "records_per_step": "51", "value_bytes": "129", "key_spread": "501",
		"changelog_partitions": "3", "exactly_once": "false", "close_failure_rate": "0.06",
		"close_failure_kind": "sticky", "cascade": "true", "init_failure_rate": "0.01",
		"leak_semantics": "no-safety-net", "rebalance_every_steps": "24", "rebalance_tasks": "0.25",
		"lifecycles": "1499", "duration": "1m", "sample_every_lifecycles": "4", "sample_interval_ms": "200",
		"synthetic_leak_bytes": "1", "restore_scratch_bytes": "1", "bounded_cache_bytes": "1", "bounded_write_buffer_bytes": "1", "read_back": "true", "seed": "7",
	}
	require.ElementsMatch(t, Keys(), keysOf(change), "a change for every field")
	seen := map[string]string{base.Digest(): "base"}
	for _, key := range Keys() {
		s := base.clone()
		require.NoError(t, s.Set(key+"="+change[key]))
		d := s.Digest()
		if prev, dup := seen[d]; dup {
			t.Errorf("changing %s gives the digest of %s", key, prev)
		}
		seen[d] = key
	}
}

func keysOf(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestSegmentIntervalAndLiveSegments(t *testing.T) {
	tests := []struct {
		name      string
		store     StoreKind
		retention int64
		interval  int64
		wantInt   int64
		wantLive  int
	}{
		{"kafka default", StoreWindow, 120000, 0, 60000, 3},
		{"floor of 60 s", StoreWindow, 60000, 0, 60000, 2},
		{"half the retention", StoreWindow, 600000, 0, 300000, 3},
		{"short retention", StoreWindow, 1000, 0, 60000, 1},
		{"explicit interval", StoreWindow, 1860000, 60000, 60000, 32},
		{"explicit interval above retention", StoreWindow, 60000, 120000, 120000, 1},
		{"kv store", StoreKV, 0, 0, 60000, 1},
		{"migrating store ignores retention", StoreMigrating, 600000, 0, 300000, 1},
		{"invalid: window without retention", StoreWindow, 0, 0, 60000, 1},
		{"invalid: negative retention", StoreWindow, -120000, 0, 60000, 1},
		{"invalid: negative interval is derived", StoreWindow, 120000, -5, 60000, 3},
		{"huge retention", StoreWindow, 1 << 62, 1, 1, 1<<62 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Scenario{Store: tt.store, RetentionMs: tt.retention, SegmentIntervalMs: tt.interval}
			assert.Equal(t, tt.wantInt, s.SegmentInterval())
			assert.Equal(t, tt.wantLive, s.LiveSegments())
		})
	}
}

func TestCanonicalYAML(t *testing.T) {
	s := valid()
	y := "\n" + string(s.CanonicalYAML())
	for _, k := range Keys() {
		assert.Contains(t, y, "\n"+k+":", "every field is present: %s", k)
	}
	assert.Contains(t, y, "models:\n  - leaky\n  - fixed\n", "indented by two spaces")
	assert.Contains(t, y, "duration: 0s\n")

	s.Models = nil
	back, err := Parse(s.CanonicalYAML())
	require.NoError(t, err)
	assert.Equal(t, []string{}, back.Models, "a nil model list is written as [] and stays empty")
}

func TestDigestResolvesSemanticsAliases(t *testing.T) {
	s, err := Get("no-safety-net")
	require.NoError(t, err)
	alias := s
	alias.LeakSemantics = "pin"
	assert.Equal(t, s.Digest(), alias.Digest())
	alias.LeakSemantics = "safety-net"
	assert.NotEqual(t, s.Digest(), alias.Digest())
}
