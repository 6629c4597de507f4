package results

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/schema"
)

// TestReportNativeMemProfile: a JVM model's nativemem profile is rendered with its own opening (no jemalloc), its
// unfreed bytes per lifecycle with the JVM's own mallocs apart, the cross-check against the native heap's slope, and
// the table's sites with their Java frames; a Go engine model's profile beside it keeps jemalloc's opening (the
// control).
func TestReportNativeMemProfile(t *testing.T) {
	r := &schema.Result{Models: []string{"kafka-4.3.0"}, Runs: map[string]*schema.Run{
		"kafka-4.3.0": {Profile: &schema.HeapProfile{Profiler: schema.ProfilerNativeMem, File: "kafka-4.3.0/growth.pb.gz",
			FlameGraph: "kafka-4.3.0/unfreed.html", SamplingIntervalBytes: 32768, WarmLifecycles: 80, EndLifecycles: 431,
			StopLifecycles: 431, Lifecycles: 351, GrowthBytes: 351 * 27_000, RuntimeBytes: 351 * 4_000,
			NativeHeapSlope: 30_000, SlopeRatio: 0.9,
			Functions: []schema.ProfileFunction{{Function: "org.apache.kafka.streams.state.internals.RocksDBStore." +
				"createOffsetsCFOptions:321 → rocksdb::port::cacheline_aligned_alloc", Bytes: 351 * 27_000}}}}}}
	md := string(ReportMarkdown(r))
	assert.Contains(t, md, "async-profiler's nativemem mode")
	assert.False(t, strings.Contains(md, "ran under jemalloc"), "no Go engine model was profiled: no jemalloc opening")
	assert.Contains(t, md, "Unfreed +9.04 MiB allocated over 351 lifecycles (80 → 431), +26.4 KiB/lifecycle")
	assert.Contains(t, md, "+3.91 KiB/lifecycle the JVM allocated for itself")
	assert.Contains(t, md, "the native heap's slope in this run is +29.3 KiB/lifecycle; the profile's unfreed bytes are 0.900 of it")
	assert.Contains(t, md, "| org.apache.kafka.streams.state.internals.RocksDBStore.createOffsetsCFOptions:321 → rocksdb::port::cacheline_aligned_alloc |")

	both := profiledResult()
	both.Models = append(both.Models, "kafka-4.3.0")
	both.Runs["kafka-4.3.0"] = r.Runs["kafka-4.3.0"]
	md = string(ReportMarkdown(both))
	assert.Contains(t, md, "Each Go engine model ran under jemalloc")
	assert.Contains(t, md, "async-profiler's nativemem mode")
}
