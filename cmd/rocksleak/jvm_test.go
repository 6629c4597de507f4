//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/harness"
)

// requireJVM points the harness at the JVM engine's build (make jvm) for
// Kafka versions vs. Without it the test is skipped, unless
// ROCKSLEAK_REQUIRE_JVM=1 (make test sets it once jvm/child exists), which
// fails it: a JVM test that silently skips proves nothing.
func requireJVM(t *testing.T, vs ...string) {
	t.Helper()
	dir := os.Getenv(harness.JVMDirEnvVar)
	if dir == "" {
		abs, err := filepath.Abs(filepath.Join("..", "..", "build", "jvm"))
		require.NoError(t, err)
		dir = abs
		t.Setenv(harness.JVMDirEnvVar, dir)
	}
	j := harness.JVM{Dir: dir}
	for _, v := range vs {
		if _, err := j.Command(v, t.TempDir()); err != nil {
			if os.Getenv("ROCKSLEAK_REQUIRE_JVM") == "1" {
				t.Fatalf("the JVM engine is required (ROCKSLEAK_REQUIRE_JVM=1): %v", err)
			}
			t.Skipf("the JVM engine is not built (make jvm): %v", err)
		}
	}
}

// TestJVMKafka430LeaksAnd431DoesNot runs Kafka Streams' own jars in the JVM
// child on the default workload (kafka-20616, 600 lifecycles): 4.3.0's
// offsets-CF options leak per segment lifecycle, so its verdict is a leak and
// the options its objects own are still live at the end (isOwningHandle(),
// read from Kafka's objects); 4.3.1 closes them, so its native heap shows no
// leak by the lifecycle count and none of those options is live.
func TestJVMKafka430LeaksAnd431DoesNot(t *testing.T) {
	requireJVM(t, "4.3.0", "4.3.1")
	res := analyse(t, "kafka-20616", "models=kafka-4.3.0,kafka-4.3.1", "lifecycles=600")
	old, fixed := res.Runs["kafka-4.3.0"], res.Runs["kafka-4.3.1"]
	require.NotNil(t, old.Verdict)
	require.NotNil(t, old.Verdict.Leak, "%s; flags %v", old.Verdict.Reason, old.Verdict.Flags)
	assert.True(t, *old.Verdict.Leak, old.Verdict.Reason)
	nat := old.Fits[analysis.SignalNativeHeap]
	assert.True(t, nat.PerLifecycle.Valid && nat.PerLifecycle.Low > 0,
		"4.3.0's native heap grows per lifecycle: %.0f [%.0f, %.0f] B", nat.PerLifecycle.Value, nat.PerLifecycle.Low, nat.PerLifecycle.High)
	notALeak(t, fixed.Verdict)
	assert.GreaterOrEqual(t, old.Lifecycles, int64(600))
	assert.GreaterOrEqual(t, fixed.Lifecycles, int64(600))
	assert.Positive(t, old.FailedCloses, "5% of closes fail their status write")
	assert.Positive(t, old.LedgerAtEnd["options"], "4.3.0 leaves its offsets-CF options owning their native object")
	assert.Zero(t, fixed.LedgerAtEnd["options"], "4.3.1 closes them")
	assert.Zero(t, old.TaskErrors)
	assert.Zero(t, fixed.TaskErrors)
}
