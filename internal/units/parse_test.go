package units

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1073741824": 1 << 30, "4GiB": 4 << 30, "512MiB": 512 << 20, "512 MiB": 512 << 20,
		"1.5GiB": 3 << 29, "4gib": 4 << 30, "4Gi": 4 << 30, "4G": 4 << 30, "2KiB": 2048, "1TiB": 1 << 40,
		"4GB": 4e9, "10kB": 10_000, "100B": 100, "1e9": 1e9,
	} {
		got, err := ParseBytes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "GiB", "4XB", "four GiB", "NaN", "Inf", "1e30GiB", "4 GiB GiB"} {
		_, err := ParseBytes(in)
		assert.Error(t, err, in)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"1h": time.Hour, "90m": 90 * time.Minute, "30d": 30 * Day, "1.5d": 36 * time.Hour, "1d12h": 36 * time.Hour,
		"0s": 0, "500ms": 500 * time.Millisecond,
	} {
		got, err := ParseDuration(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "1", "3600", "d", "1dd", "1h2d", "one hour", "1d-1h", "1e300d"} {
		_, err := ParseDuration(in)
		assert.Error(t, err, in)
	}
}

func TestDurationVar(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var d time.Duration
	DurationVar(fs, &d, "duration", -1, "")
	assert.Equal(t, time.Duration(-1), d, "the default")
	require.NoError(t, fs.Parse([]string{"--duration", "1d2h"}))
	assert.Equal(t, 26*time.Hour, d)
	assert.Error(t, fs.Parse([]string{"--duration", "30"}), "a bare number has no unit")
}
