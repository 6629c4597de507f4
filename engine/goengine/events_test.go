package goengine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

// jsonLine is what encoding/json's Encoder writes for e: the wire format the
// parent reads.
func jsonLine(t *testing.T, e harness.Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(e))
	return buf.Bytes()
}

// TestChildEventsAreEncodingJSONs runs a real child (the smoke scenario's
// fixed model, in this process, on real RocksDB) and checks every line it
// writes: it decodes as the parent decodes it, and encoding/json writes the
// decoded event back byte for byte, so the parent reads the lines the child
// wrote by hand as it read encoding/json's (that the values are the sample's:
// TestEventWriterMatchesEncodingJSON).
func TestChildEventsAreEncodingJSONs(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	sc.Lifecycles = 20
	var in, out bytes.Buffer
	require.NoError(t, json.NewEncoder(&in).Encode(harness.Job{Scenario: sc, Model: "fixed", RunName: spec.RunName{Model: "fixed"}, Seed: 1,
		StateDir: t.TempDir() + "/state"}))
	require.NoError(t, RunChild(context.Background(), &in, &out))
	samples, withDBs := 0, 0
	sc2 := bufio.NewScanner(&out)
	for sc2.Scan() {
		line := append(sc2.Bytes(), '\n')
		var e harness.Event
		require.NoError(t, json.Unmarshal(line, &e))
		require.Equal(t, string(line), string(jsonLine(t, e)))
		if e.Sample != nil {
			samples++
			require.NotNil(t, e.Sample.LiveNatives)
			require.Positive(t, e.Sample.RSS)
			if e.Sample.RocksDB.OpenDBs > 0 {
				withDBs++
			}
		}
	}
	require.NoError(t, sc2.Err())
	assert.GreaterOrEqual(t, samples, 10, "samples as the lifecycles go")
	assert.Positive(t, withDBs, "samples with stores open")
}
