//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/engine/jvm"
	"github.com/rocksleak/rocksleak/schema"
)

// jvmDir names the JVM engine's build for the whole test binary: make test
// sets ROCKSLEAK_JVM_DIR; without it, the repository's build/jvm (make jvm).
// It sets the process's environment once (os.Setenv: a test that shares the
// cores may not call t.Setenv), and every JVM test wants the same value.
var jvmDir = sync.OnceValue(func() string {
	if dir := os.Getenv(jvm.DirEnvVar); dir != "" {
		return dir
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "build", "jvm"))
	if err != nil {
		return "" // no working directory: the JVM build is then not found, as requireJVM says
	}
	_ = os.Setenv(jvm.DirEnvVar, dir)
	return dir
})

// requireJVM points the harness at the JVM engine's build (make jvm) for
// Kafka versions vs. Without it the test is skipped, unless
// ROCKSLEAK_REQUIRE_JVM=1 (make test sets it once engine/jvm/child exists), which
// fails it: a JVM test that silently skips proves nothing.
func requireJVM(t *testing.T, vs ...string) {
	t.Helper()
	dir := jvmDir()
	j := jvm.Engine{Dir: dir}
	for _, v := range vs {
		if _, err := j.CommandLine(v, t.TempDir()); err != nil {
			if os.Getenv("ROCKSLEAK_REQUIRE_JVM") == "1" {
				t.Fatalf("the JVM engine is required (ROCKSLEAK_REQUIRE_JVM=1): %v", err)
			}
			t.Skipf("the JVM engine is not built (make jvm): %v", err)
		}
	}
}

// TestJVMKafka430LeaksAnd431DoesNot runs Kafka Streams' own jars in the JVM
// child on the default workload at 2 records per store and step (kafka-20616,
// 1,000 lifecycles): 4.3.0 leaks its offsets-CF options on every open, so at
// the end one options object per lifecycle still owns its native object
// (isOwningHandle(), read from Kafka's objects: the leak by the lifecycle
// count), its native heap's interval per lifecycle lies above the floor and
// its verdict is a leak; 4.3.1 closes them, so none is live, its native heap's
// interval lies below the floor, and it is not called a leak. The native heap
// is read without the JVM's own mallocs (docs/jvm-engine.md).
func TestJVMKafka430LeaksAnd431DoesNot(t *testing.T) {
	if testing.Short() {
		t.Skip("two JVM runs of 1,000 lifecycles take about 3 minutes")
	}
	// Its verdicts read memory; it runs beside one other test at most (sharesTheCores says why that is safe).
	sharesTheCores(t)
	requireJVM(t, "4.3.0", "4.3.1")
	res := analyse(t, "kafka-20616", "models=kafka-4.3.0,kafka-4.3.1", "records_per_step=2", "lifecycles=1000")
	old, fixed := res.Runs["kafka-4.3.0"], res.Runs["kafka-4.3.1"]
	require.NotNil(t, old.Verdict)
	require.NotNil(t, fixed.Verdict)
	t.Logf("kafka-4.3.0: %s", old.Verdict.Reason)
	t.Logf("kafka-4.3.1: %s", fixed.Verdict.Reason)
	floor := analysis.DefaultFloors().NativeHeap
	// The native heap read without the JVM's own mallocs (runtime_malloc) and with C1 only: 4.3.0's interval was
	// [29.3 KiB, 29.6 KiB] and 4.3.1's [487 B, 879 B] (RocksJava's read options) at seeds 20616, 7 and 99.
	nat := old.Fits[analysis.SignalNativeHeap].Total.PerLifecycle
	assert.Greater(t, nat.Low, floor, "4.3.0's native heap grows by more than the floor per lifecycle: %+v", nat)
	assert.True(t, old.Verdict.Leak != nil && *old.Verdict.Leak, "4.3.0 is a leak: %s", old.Verdict.Reason)
	fnat := fixed.Fits[analysis.SignalNativeHeap].Total.PerLifecycle
	assert.Less(t, fnat.High, floor, "4.3.1's native heap grows by less than the floor per lifecycle: %+v", fnat)
	notALeak(t, fixed.Verdict)
	for _, c := range res.Controlled {
		t.Logf("%s vs %s (%s): %s", c.Model, c.Control, c.Differs, c.Reason)
	}
	for _, r := range []*schema.Run{old, fixed} {
		assert.GreaterOrEqual(t, r.Lifecycles, int64(1000))
		assert.Positive(t, r.FailedCloses, "5%% of closes fail their status write")
		assert.Zero(t, r.TaskErrors)
		// The JVM child does not read its stores back: records lost is marked not measured, never a 0 that
		// cannot fail (issue 42); the writes it counts, refused puts, are none here.
		assert.NotEmpty(t, r.RecordsNotMeasured, "records lost is marked not measured on the jars")
		assert.Zero(t, r.RecordsWriteFailed)
	}
	assert.GreaterOrEqual(t, old.LedgerAtEnd["options"], old.Lifecycles,
		"4.3.0 leaves every open's offsets-CF options owning their native object")
	assert.Zero(t, fixed.LedgerAtEnd["options"], "4.3.1 closes them")
}

// TestJVMKafka422CountsLifecyclesAndReadsTheLedger runs Kafka 4.2.2's own jars
// (no offsets column family, no StateStore.commit(Map): the child flushes on
// commit, as 4.2's task commit does) on the default workload, 300 lifecycles at
// 2 records per step. The lifecycles are counted as under 4.3: window segments
// expired by Kafka's own TimestampedSegments (4.2 creates them in
// getOrCreateSegment, not through 4.3's createSegment) and store closes, so the
// run reaches its lifecycle count; no close fails (4.2 writes no status at
// close); the ledger, read from the real RocksDB objects, holds RocksJava's
// defaultReadOptions_ live, one per opened DB, and no offsets-CF options.
func TestJVMKafka422CountsLifecyclesAndReadsTheLedger(t *testing.T) {
	if testing.Short() {
		t.Skip("a JVM run of 300 lifecycles takes about 30 seconds")
	}
	// It asserts counts, the RocksDB version and the ledger, no memory figure (the verdict is only logged): it
	// shares the cores.
	sharesTheCores(t)
	requireJVM(t, "4.2.2")
	res := analyse(t, "kafka-20616", "models=kafka-4.2.2", "records_per_step=2", "lifecycles=300")
	r := res.Runs["kafka-4.2.2"]
	require.NotNil(t, r)
	require.Empty(t, r.Error)
	assert.Equal(t, "10.1.3", r.RocksDBVersion, "the rocksdbjni 4.2.2's pom names")
	assert.GreaterOrEqual(t, r.Lifecycles, int64(300), "segment expiries and store closes counted")
	assert.Zero(t, r.FailedCloses, "4.2.2's RocksDBStore.close() writes no status, so no close can fail")
	assert.Zero(t, r.TaskErrors)
	assert.GreaterOrEqual(t, r.LedgerAtEnd["read_options"], r.Lifecycles,
		"every closed DB's defaultReadOptions_ still owns its native object (RocksDB.close() never closes it)")
	assert.Zero(t, r.LedgerAtEnd["options"], "no offsets column family, so no offsets-CF options")
	require.NotNil(t, r.Verdict)
	t.Logf("kafka-4.2.2: %d lifecycles, ledger %v, %s", r.Lifecycles, r.LedgerAtEnd, r.Verdict.Reason)
}

// TestJVMRefusesWhatItCannotHonour: a scenario field the Java child cannot
// honour is refused before any work (exit 2, no results directory), naming
// the field and the engine, never run under its label (restore-peak's
// restore scratch, refused here before, runs: TestJVMRestorePeakIsNotALeak). no-safety-net is
// issue 42's case: the Java child runs RocksJava's own close, so a
// kafka-<version> model under it would have been RocksJava's normal close
// labelled no-safety-net. The refusal reads the engine's capabilities, not
// the build: it holds whether or not make jvm has run.
func TestJVMRefusesWhatItCannotHonour(t *testing.T) {
	jvmDir() // the build the JVM tests share: with it, a run not refused would run
	for _, tc := range []struct {
		name  string
		args  []string
		field string
	}{
		{"no safety net", []string{"--scenario", "no-safety-net"}, "leak_semantics: no-safety-net"},
		{"sticky close failures", []string{"--scenario", "eos-v2-cascade"}, "close_failure_kind: sticky"},
		{"init failures on window stores", []string{"--set", "init_failure_rate=0.1"}, "init_failure_rate: 0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"run", "--models", "kafka-4.3.0", "--lifecycles", "50", "--out", out,
				"--state-dir", stateRoot(t)}, tc.args...)
			_, stderr, code := runCLI(t, args...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, tc.field)
			assert.Contains(t, stderr, "the JVM engine does not honour")
			assert.NoDirExists(t, out, "nothing ran")
		})
	}
	// The control: the Go engine honours them all (its runs are other tests': TestNoSafetyNetPinsDBs, ...).
}

// TestJVMRestorePeakIsNotALeak: restore-peak, the estimators' negative
// control, on Kafka 4.3.1's own jars (refused on the jars before issue 42):
// every restore holds the scenario's 8 MiB of touched C memory to its end and
// frees it (RestoreScratch.java; RestoreScratchTest shows the native heap
// holding and freeing it), the run restores, and 4.3.1 is never called a leak.
func TestJVMRestorePeakIsNotALeak(t *testing.T) {
	if testing.Short() {
		t.Skip("a JVM run of 300 lifecycles takes 4 to 15 seconds")
	}
	// Its verdict reads memory; it runs beside one other test at most (sharesTheCores says why that is safe).
	sharesTheCores(t)
	requireJVM(t, "4.3.1")
	res := analyse(t, "restore-peak", "models=kafka-4.3.1", "lifecycles=300")
	run := res.Runs["kafka-4.3.1"]
	require.NotNil(t, run)
	require.Empty(t, run.Error)
	assert.Equal(t, 8<<20, res.Scenario.RestoreScratchBytes, "the job carried the scratch")
	assert.Positive(t, run.Restore.Count, "restores happened, each holding its scratch")
	assert.GreaterOrEqual(t, run.Lifecycles, int64(300))
	notALeak(t, run.Verdict)
	t.Logf("kafka-4.3.1: %d restores, %s", run.Restore.Count, run.Verdict.Reason)
}
