package harness

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

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
	j := JVM{Java: "/bin/true", Dir: dir, MaxHeap: "128m"}

	_, err := j.Command("4.3.0", "/tmp/x")
	require.ErrorIs(t, err, ErrJVMNotBuilt)
	require.ErrorContains(t, err, "make jvm")

	writeJar(t, filepath.Join(dir, JVMChildJar), "Manifest-Version: 1.0\r\nMain-Class: dev.rocksleak.child.Main\r\n")
	_, err = j.Command("4.3.0", "/tmp/x")
	require.ErrorIs(t, err, ErrJVMNotBuilt)
	require.ErrorContains(t, err, "Kafka 4.3.0: no classpath")
	require.ErrorContains(t, err, "versions built: none")

	require.NoError(t, os.WriteFile(filepath.Join(dir, JVMClasspathFile("4.3.0")), []byte("/m2/a.jar:/m2/b.jar\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, JVMClasspathFile("4.3.1")), []byte("/m2/c.jar\n"), 0o644))
	require.Equal(t, []string{"4.3.0", "4.3.1"}, j.Versions())
	_, err = j.Command("4.2.0", "/tmp/x")
	require.ErrorContains(t, err, "versions built: 4.3.0, 4.3.1")

	line, err := j.Command("4.3.0", "/tmp/x")
	require.NoError(t, err)
	require.Equal(t, []string{"/bin/true", "-XX:NativeMemoryTracking=summary", "-Xms128m", "-Xmx128m",
		"-XX:+AlwaysPreTouch", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.io.tmpdir=/tmp/x",
		"-cp", filepath.Join(dir, JVMChildJar) + ":/m2/a.jar:/m2/b.jar", "dev.rocksleak.child.Main"}, line)

	// ROCKSLEAK_JVM_CHILD_ARGS goes to the child, after its main class (make bench-jvm's --bare).
	t.Setenv(JVMChildArgsEnvVar, "--bare")
	bare, err := j.Command("4.3.0", "/tmp/x")
	require.NoError(t, err)
	require.Equal(t, append(line, "--bare"), bare)
	t.Setenv(JVMChildArgsEnvVar, "")

	writeJar(t, filepath.Join(dir, JVMChildJar), "Manifest-Version: 1.0\n")
	_, err = j.Command("4.3.0", "/tmp/x")
	require.ErrorContains(t, err, "names no Main-Class")

	_, err = JVM{Java: "/no/such/java", Dir: dir}.Command("4.3.0", "/tmp/x")
	require.ErrorIs(t, err, ErrJVMNotBuilt)
	require.ErrorContains(t, err, "openjdk-17-jdk-headless")
}

// TestRunRefusesAnUnbuiltKafkaVersionFirst: a run mixing engines stops before
// any model runs when a kafka-<version> model cannot start.
func TestRunRefusesAnUnbuiltKafkaVersionFirst(t *testing.T) {
	sc := smokeScenario(t)
	started := filepath.Join(t.TempDir(), "started")
	_, err := Run(t.Context(), Config{Scenario: sc, Models: []string{"leaky", "kafka-4.3.0"},
		Exe: "/bin/sh", ChildArgs: []string{"-c", "touch " + started}, StateRoot: t.TempDir(),
		JVM: JVM{Dir: t.TempDir()}})
	require.ErrorIs(t, err, ErrJVMNotBuilt)
	require.ErrorContains(t, err, "kafka-4.3.0:")
	require.NoFileExists(t, started, "no model ran")
}

func smokeScenario(t *testing.T) scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	return sc
}
