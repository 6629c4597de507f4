package jvm

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/scenarios"
)

// writeJar writes a jar holding only a manifest.
func writeJar(t *testing.T, path, manifest string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	z := zip.NewWriter(f)
	w, err := z.Create("META-INF/MANIFEST.MF")
	require.NoError(t, err)
	_, err = w.Write([]byte(manifest))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	require.NoError(t, f.Close())
}

// TestJVMCommand: the JVM child's command line (the jar's Main-Class, the
// version's classpath after the jar, Native Memory Tracking, a fixed heap),
// and errors that name what is missing and the command that builds it.
func TestJVMCommand(t *testing.T) {
	dir := t.TempDir()
	j := Engine{Java: "/bin/true", Dir: dir, MaxHeap: "128m"}

	_, err := j.CommandLine("4.3.0", "/tmp/x")
	require.ErrorIs(t, err, ErrNotBuilt)
	require.ErrorContains(t, err, "make jvm")

	writeJar(t, filepath.Join(dir, ChildJar), "Manifest-Version: 1.0\r\nMain-Class: dev.rocksleak.child.Main\r\n")
	_, err = j.CommandLine("4.3.0", "/tmp/x")
	require.ErrorIs(t, err, ErrNotBuilt)
	require.ErrorContains(t, err, "Kafka 4.3.0: no classpath")
	require.ErrorContains(t, err, "versions built: none")

	require.NoError(t, os.WriteFile(filepath.Join(dir, ClasspathFile("4.3.0")), []byte("/m2/a.jar:/m2/b.jar\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ClasspathFile("4.3.1")), []byte("/m2/c.jar\n"), 0o644))
	require.Equal(t, []string{"4.3.0", "4.3.1"}, j.Versions())
	_, err = j.CommandLine("4.2.0", "/tmp/x")
	require.ErrorContains(t, err, "versions built: 4.3.0, 4.3.1")

	line, err := j.CommandLine("4.3.0", "/tmp/x")
	require.NoError(t, err)
	require.Equal(t, []string{"/bin/true", "-XX:NativeMemoryTracking=summary", "-Xms128m", "-Xmx128m",
		"-XX:+AlwaysPreTouch", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.io.tmpdir=/tmp/x",
		"-cp", filepath.Join(dir, ChildJar) + ":/m2/a.jar:/m2/b.jar", "dev.rocksleak.child.Main"}, line)

	// ROCKSLEAK_JVM_CHILD_ARGS goes to the child, after its main class (make bench-jvm's --bare).
	t.Setenv(ChildArgsEnvVar, "--bare")
	bare, err := j.CommandLine("4.3.0", "/tmp/x")
	require.NoError(t, err)
	require.Equal(t, append(line, "--bare"), bare)
	t.Setenv(ChildArgsEnvVar, "")

	writeJar(t, filepath.Join(dir, ChildJar), "Manifest-Version: 1.0\n")
	_, err = j.CommandLine("4.3.0", "/tmp/x")
	require.ErrorContains(t, err, "names no Main-Class")

	_, err = Engine{Java: "/no/such/java", Dir: dir}.CommandLine("4.3.0", "/tmp/x")
	require.ErrorIs(t, err, ErrNotBuilt)
	require.ErrorContains(t, err, "openjdk-17-jdk-headless")
}

// TestCapabilitiesRefuseWhatTheJavaChildCannotRun: over the catalogue, the
// JVM engine refuses exactly the scenarios that set what its Java child
// does not run (each named by its field) and honours the others, the
// default first among them (the control), and restore-peak's 8 MiB restore
// scratch (RestoreScratch.java; refused before issue 42).
func TestCapabilitiesRefuseWhatTheJavaChildCannotRun(t *testing.T) {
	refused := map[string]string{
		"no-safety-net":  "leak_semantics",
		"eos-v2-cascade": "close_failure_kind",
	}
	for _, name := range scenarios.Names() {
		sc, err := scenarios.Get(name)
		require.NoError(t, err)
		err = engine.Refuse(Engine{}, sc, false)
		if field, ok := refused[name]; ok {
			require.ErrorIs(t, err, engine.ErrUnsupported, name)
			assert.Contains(t, err.Error(), field, name)
			assert.Contains(t, err.Error(), "the JVM engine does not honour", name)
		} else {
			assert.NoError(t, err, name)
		}
	}
	sc, err := scenarios.Get("kafka-20616")
	require.NoError(t, err)
	assert.NoError(t, engine.Refuse(Engine{}, sc, true), "--profile: async-profiler's nativemem mode (nativemem.go)")
	var _ engine.NativeProfiler = Engine{} // what --profile asks of it
	peak, err := scenarios.Get("restore-peak")
	require.NoError(t, err)
	require.Positive(t, peak.RestoreScratchBytes)
	assert.NoError(t, engine.Refuse(Engine{}, peak, false), "the Java child holds restore_scratch_bytes per restore")
}

// TestLimitsNameScenarioFields: every limit of the JVM engine names a
// scenario field as its YAML spells it (docs/developing.md's "How to add a
// scenario field": a limit is how an engine says it cannot honour one).
func TestLimitsNameScenarioFields(t *testing.T) {
	for _, l := range (Engine{}).Capabilities().Limits {
		assert.Contains(t, scenarios.Keys(), l.Field)
		assert.NotEmpty(t, l.Honours, l.Field)
		assert.NotEmpty(t, l.Why, l.Field)
	}
}

// TestCapabilitiesHonourInitFailuresOnKeyValueStoresOnly: init_failure_rate
// above 0 runs on the jars for key-value stores (kv, migrating: the child's
// LockHolder) and is refused for window stores, naming the field; at 0 it is
// honoured for every store (the control).
func TestCapabilitiesHonourInitFailuresOnKeyValueStoresOnly(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		rate     float64
		refused  bool
	}{
		{"kv-clean", 0.2, false},
		{"migrating-store", 0.2, false},
		{"kafka-20616", 0.2, true},
		{"kafka-20616", 0, false},
	} {
		sc, err := scenarios.Get(tc.scenario)
		require.NoError(t, err)
		sc.InitFailureRate = tc.rate
		err = engine.Refuse(Engine{}, sc, false)
		if tc.refused {
			require.ErrorIs(t, err, engine.ErrUnsupported, tc.scenario)
			assert.Contains(t, err.Error(), "init_failure_rate: 0.2")
		} else {
			assert.NoError(t, err, "%s at %v", tc.scenario, tc.rate)
		}
	}
}
