//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// kafka20616Site is the Java frame of KAFKA-20616's leak: the offsets column family's options, built per open and
// never closed in 4.3.0.
const kafka20616Site = "org.apache.kafka.streams.state.internals.RocksDBStore.createOffsetsCFOptions"

// bytesUnder sums a profile's unfreed bytes whose site's Java frame is site.
func bytesUnder(p *schema.HeapProfile, site string) int64 {
	var n int64
	for _, f := range p.Functions {
		if strings.HasPrefix(f.Function, site+":") {
			n += f.Bytes
		}
	}
	return n
}

// TestProfileJVMNamesKafka430sLeak: rocksleak run --profile on Kafka's own jars (async-profiler's nativemem mode in
// the Java child, recorded from the warm-up until every store closed). Positive control: kafka-4.3.0's unfreed bytes lie mostly (≥ 75%) under
// RocksDBStore.createOffsetsCFOptions, KAFKA-20616's frame, and agree with its native heap's slope (ratio 0.6-1.4).
// Negative control: kafka-4.3.1's unfreed bytes per lifecycle are under a tenth of 4.3.0's, and none of them is under
// that frame. Each model's pprof file, collapsed stacks and flame graph are in its folder.
func TestProfileJVMNamesKafka430sLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("two profiled JVM runs of 400 lifecycles")
	}
	sharesTheCores(t)
	requireJVM(t, "4.3.0", "4.3.1")
	out, res := profiledRun(t, "--models", "kafka-4.3.0,kafka-4.3.1", "--set", "records_per_step=2", "--lifecycles", "400")
	old, fixed := res.Runs["kafka-4.3.0"].Profile, res.Runs["kafka-4.3.1"].Profile
	for m, p := range map[string]*schema.HeapProfile{"kafka-4.3.0": old, "kafka-4.3.1": fixed} {
		require.NotNil(t, p, m)
		require.Empty(t, p.Error, m)
		assert.Equal(t, schema.ProfilerNativeMem, p.Profiler, m)
		require.Positive(t, p.Lifecycles, m)
		for _, f := range []string{p.File, p.FlameGraph, m + "/unfreed.collapsed"} {
			assert.FileExists(t, filepath.Join(out, f), m)
		}
		assert.NoFileExists(t, filepath.Join(out, m, "nativemem.jfr"), "the recording is removed once read")
	}
	html, err := os.ReadFile(filepath.Join(out, old.FlameGraph))
	require.NoError(t, err)
	// Its frame names are prefix-compressed in the page's script; its title is plain.
	assert.True(t, strings.HasPrefix(string(html), "<!DOCTYPE html>") && strings.Contains(string(html), "native allocations not freed"),
		"the flame graph is jfrconv's HTML page with its title")

	perOld := float64(old.GrowthBytes) / float64(old.Lifecycles)
	perFixed := float64(fixed.GrowthBytes) / float64(fixed.Lifecycles)
	t.Logf("kafka-4.3.0: unfreed %.0f B/lifecycle, native heap slope %.0f B/lifecycle (ratio %.3f), %d B under %s",
		perOld, old.NativeHeapSlope, old.SlopeRatio, bytesUnder(old, kafka20616Site), kafka20616Site)
	t.Logf("kafka-4.3.1: unfreed %.0f B/lifecycle, native heap slope %.0f B/lifecycle (ratio %.3f)",
		perFixed, fixed.NativeHeapSlope, fixed.SlopeRatio)
	assert.GreaterOrEqual(t, float64(bytesUnder(old, kafka20616Site)), 0.75*float64(old.GrowthBytes),
		"4.3.0's unfreed bytes lie mostly under KAFKA-20616's frame: %+v", old.Functions)
	assert.InDelta(t, 1, old.SlopeRatio, 0.4, "4.3.0's unfreed bytes per lifecycle agree with its native heap's slope")
	assert.Less(t, perFixed, perOld/10, "4.3.1 leaves far fewer bytes unfreed per lifecycle: %+v", fixed.Functions)
	assert.Zero(t, bytesUnder(fixed, kafka20616Site), "4.3.1 closes the offsets options: %+v", fixed.Functions)
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(report), kafka20616Site+":")
	assert.Contains(t, string(report), "Cross-check: the native heap's slope")
}
