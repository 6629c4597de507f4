package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModels(t *testing.T) {
	assert.Equal(t, []string{"leaky", "fixed", "options-fix", "finally-fix", "read-options-fix", "all-fixes"}, ModelNames())
	for _, tc := range []struct {
		m    Model
		want []Fix
	}{
		{Leaky, nil},
		{Fixed, []Fix{FixOffsetsOptions, FixFinally}},
		{OptionsFix, []Fix{FixOffsetsOptions}},
		{FinallyFix, []Fix{FixFinally}},
		{ReadOptionsFix, []Fix{FixReadOptions}},
		{AllFixes, []Fix{FixOffsetsOptions, FixFinally, FixReadOptions}},
	} {
		assert.Equal(t, tc.want, tc.m.Fixes.List(), tc.m.Name)
		for _, f := range Fixes() {
			assert.Equal(t, contains(tc.want, f), tc.m.Has(f), "%s has %s", tc.m.Name, f)
		}
		got, err := ParseModel(tc.m.Name)
		require.NoError(t, err)
		assert.Equal(t, tc.m, got)
	}
	assert.False(t, AllFixes.Has(0), "the zero Fix is not a fix")
	assert.NotEqual(t, Fixed, AllFixes, "4.3.1 does not ship the read-options fix")
}

func contains(fs []Fix, f Fix) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

func TestParseModelError(t *testing.T) {
	_, err := ParseModel("fixd")
	require.Error(t, err)
	assert.EqualError(t, err, `unknown model "fixd" (known: leaky, fixed, options-fix, finally-fix, read-options-fix, all-fixes)`)
}

func TestParseSemantics(t *testing.T) {
	for in, want := range map[string]Semantics{
		"": RocksJava, "rocksjava": RocksJava, "safety-net": RocksJava,
		"no-safety-net": NoSafetyNet, "pin": NoSafetyNet,
	} {
		got, err := ParseSemantics(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ParseSemantics("pinned")
	assert.EqualError(t, err, `unknown leak semantics "pinned" (known: rocksjava, no-safety-net; aliases: safety-net, pin)`)
}

// TestModelReleaseLabels: the release labels live on the models (leaky is
// 4.3.0, fixed is 4.3.1, the what-ifs none), a kafka-<version> name is its
// version, and a name with a suffix is no release as written.
func TestModelReleaseLabels(t *testing.T) {
	for name, want := range map[string]string{
		"leaky": "4.3.0", "fixed": "4.3.1", "options-fix": "", "finally-fix": "", "read-options-fix": "",
		"all-fixes": "", "kafka-4.2.2": "4.2.2", "leaky@jemalloc": "", "nonsense": "",
	} {
		assert.Equal(t, want, ModelRelease(name), name)
	}
}
