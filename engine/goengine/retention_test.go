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
	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// TestChildProbesRetentionAfterItsLastSample runs a real child (the smoke scenario's fixed model, in this process, on
// real RocksDB) and checks that its summary carries the allocator-retention probe, taken once after the end sample:
// at the end sample's lifecycle count, on the heap the end sample read (RSS before the probe no lower than a
// little under the end sample's), with the action of this process's allocator. A protocol test: it passes under
// every model. The probe's figures are checked by measure's retention controls.
func TestChildProbesRetentionAfterItsLastSample(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	sc.Lifecycles = 20
	var in, out bytes.Buffer
	require.NoError(t, json.NewEncoder(&in).Encode(harness.Job{Scenario: sc, Model: "fixed", RunName: spec.RunName{Model: "fixed"}, Seed: 1,
		StateDir: t.TempDir() + "/state"}))
	require.NoError(t, RunChild(context.Background(), &in, &out))

	var last *schema.Sample
	var sum *schema.Summary
	var alloc spec.Allocator
	lines := bufio.NewScanner(&out)
	for lines.Scan() {
		var e harness.Event
		require.NoError(t, json.Unmarshal(lines.Bytes(), &e))
		require.Nil(t, sum, "nothing after the summary")
		switch {
		case e.Info != nil:
			alloc = e.Info.Allocator
		case e.Sample != nil:
			last = e.Sample
		case e.Summary != nil:
			sum = e.Summary
		}
	}
	require.NoError(t, lines.Err())
	require.NotNil(t, last)
	require.NotNil(t, sum)
	require.Equal(t, schema.TriggerEnd, last.Trigger)
	r := sum.Retention
	require.NotNil(t, r, "the summary carries the probe")
	assert.Empty(t, r.Error)
	assert.Equal(t, alloc, r.Allocator)
	want := measure.ActionTrim
	if alloc == spec.AllocatorJemalloc {
		want = measure.ActionPurge
	}
	assert.Equal(t, want, r.Action)
	assert.Equal(t, last.Lifecycles, r.Lifecycles, "taken at the end sample's lifecycle count")
	assert.InEpsilon(t, last.RSS, r.RSSBefore, 0.1, "the end sample's heap, before the stores close")
	assert.Equal(t, r.RSSBefore-r.RSSAfter, r.Released)
	assert.Positive(t, r.RSSAfter)
	assert.Positive(t, r.NativeHeapBefore)
}
