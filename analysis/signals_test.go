package analysis

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// unplotted and ungated are the registered signals without a plot or without
// gate metrics, each with why: a signal added to the registry with neither a
// plot nor an entry here fails TestSignalRegistry, and so does one with no
// gate metrics.
var (
	unplotted = map[string]string{
		SignalGoHeap: "the Go child's own heap, not the code under test's native memory: the report's fit table has its slope",
		SignalFDs:    "a count, not memory: the report's fit table has its slope",
	}
	ungated = map[string]string{
		SignalGoHeap: "the Go child's own heap, not the code under test's native memory",
	}
)

// TestSignalRegistry follows docs/developing.md's "How to add a signal": every
// registered signal is read from a sample field it names (one of samples.csv's
// columns, which the child protocol's sample carries), has a plot and gate
// metrics or says why not, and a key, name, title and unit. Shown failing: with
// the RSS entry's Plot removed ("rss has no plot and is not in unplotted"), and
// with go_heap's Field set to "go_heap_bytes" (not a sample field).
func TestSignalRegistry(t *testing.T) {
	columns := schema.CSVHeader(nil)
	require.Equal(t, []string{SignalNativeHeap, SignalRSS, SignalGoHeap, SignalFDs}, Signals(), "report order")
	files, prefixes := map[string]bool{}, map[string]bool{}
	for _, d := range Registered() {
		t.Run(d.Key, func(t *testing.T) {
			require.NotEmpty(t, d.Name)
			require.NotEmpty(t, d.Title)
			require.Contains(t, []string{"bytes", "fds"}, d.Unit)
			require.Equal(t, d.Title, Describe(d.Key).Title)
			require.True(t, slices.Contains(columns, d.Field), "%s's field %q is not a sample field", d.Key, d.Field)

			// The value is read from that field: a sample with only it set reads it.
			var s schema.Sample
			require.NoError(t, json.Unmarshal([]byte(`{"`+d.Field+`": 123456}`), &s))
			require.Equal(t, 123456.0, SignalValue(s, d.Key), "%s is not read from %q", d.Key, d.Field)

			if d.Plot == nil {
				require.NotEmpty(t, unplotted[d.Key], "%s has no plot and is not in unplotted", d.Key)
			} else {
				require.NotContains(t, unplotted, d.Key)
				require.NotEmpty(t, d.Plot.Title)
				require.NotEmpty(t, d.Plot.YLabel)
				require.False(t, files[d.Plot.File], "two signals plot to %s", d.Plot.File)
				files[d.Plot.File] = true
			}
			if d.Gate == nil {
				require.NotEmpty(t, ungated[d.Key], "%s has no gate metrics and is not in ungated", d.Key)
			} else {
				require.NotContains(t, ungated, d.Key)
				require.NotEmpty(t, d.Gate.Prefix)
				require.False(t, prefixes[d.Gate.Prefix], "two signals name gate metrics %s_*", d.Gate.Prefix)
				prefixes[d.Gate.Prefix] = true
				require.False(t, d.Gate.PerMillion && d.Unit != "bytes", "per million records is in bytes only")
			}
		})
	}
}
