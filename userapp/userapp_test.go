package userapp

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "app.jar", "")
	write(t, dir, "app.properties", "application.id=x\n")
	ok := write(t, dir, "ok.yaml", "class: com.example.App\nclasspath: [app.jar]\nproperties: app.properties\nkafka: [4.3.0, 4.3.1]\nwall_clock_per_step: 30s\n")
	a, err := Load(ok)
	require.NoError(t, err)
	assert.Equal(t, "ok", a.Name)
	assert.Equal(t, []string{"kafka-4.3.0", "kafka-4.3.1"}, a.Models())
	assert.Equal(t, []string{filepath.Join(dir, "app.jar")}, a.Job.Classpath, "relative to the file")
	assert.Equal(t, Job{Class: "com.example.App", Classpath: a.Job.Classpath, Properties: filepath.Join(dir, "app.properties"),
		StepsPerLifecycle: 20, StreamTimePerStepMs: 60_000, WallClockPerStepMs: 30_000, HangAfterMs: 60_000}, a.Job)
	for _, tc := range []struct{ yaml, words string }{
		{"classpath: [app.jar]\nproperties: app.properties\n", "class: missing"},
		{"class: A\nproperties: app.properties\n", "classpath: missing"},
		{"class: A\nclasspath: [nope.jar]\nproperties: app.properties\n", "nope.jar does not exist"},
		{"class: A\nclasspath: [app.jar]\n", "properties: missing"},
		{"class: A\nclasspath: [app.jar]\nproperties: app.properties\nhang_after: soon\n", "hang_after:"},
		{"class: A\nclasspath: [app.jar]\nproperties: app.properties\nsteps_per_lifecycle: -1\n", "steps_per_lifecycle"},
		{"class: A\nclasspath: [app.jar]\nproperties: app.properties\nstores: 2\n", `unknown field "stores"`},
	} {
		_, err := Load(write(t, dir, "bad.yaml", tc.yaml))
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.words)
		assert.Contains(t, err.Error(), "--app: ")
	}
}

func TestRedactor(t *testing.T) {
	for _, tc := range []struct {
		key    string
		secret bool
	}{
		{"sasl.jaas.config", true}, {"ssl.keystore.password", true}, {"ssl.keystore.location", true},
		{"producer.ssl.truststore.password", true}, {"schema.registry.basic.auth.user.info", true},
		{"my.api.token", true}, {"client.secret", true}, {"application.id", false}, {"rocksdb.config.setter", false},
	} {
		assert.Equal(t, tc.secret, IsSecret(tc.key), tc.key)
	}
	p := write(t, t.TempDir(), "p.properties", "sasl.jaas.config=x required password=\"hunter2-long\";\nssl.key.password : pw-9\napplication.id=app\n")
	r, err := NewRedactor(p)
	require.NoError(t, err)
	assert.Equal(t, "error: [redacted] and [redacted], app", r.Redact(`error: x required password="hunter2-long"; and pw-9, app`))
	var b bytes.Buffer
	w := r.Writer(&b)
	for _, part := range []string{"a pw", "-9 b\nc x required pass", `word="hunter2-long"; d`} {
		_, err := w.Write([]byte(part))
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	assert.Equal(t, "a [redacted] b\nc [redacted] d", b.String(), "a secret split across writes is found")
}

func TestCheckClasspath(t *testing.T) {
	dir := t.TempDir()
	fat := filepath.Join(dir, "fat.jar")
	f, err := os.Create(fat)
	require.NoError(t, err)
	z := zip.NewWriter(f)
	e, err := z.Create("kafka/kafka-version.properties")
	require.NoError(t, err)
	_, err = e.Write([]byte("version=4.2.0\n"))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	require.NoError(t, f.Close())
	classes := filepath.Join(dir, "classes")
	require.NoError(t, os.MkdirAll(filepath.Join(classes, "kafka"), 0o755))
	write(t, classes, "kafka/kafka-streams-version.properties", "version=4.3.1\n")
	mine := write(t, dir, "app.jar", "")
	require.NoError(t, os.Remove(mine))
	z2, err := os.Create(mine)
	require.NoError(t, err)
	require.NoError(t, zip.NewWriter(z2).Close())
	require.NoError(t, z2.Close())
	rocks := write(t, dir, "rocksdbjni-9.7.3.jar", "")
	require.NoError(t, os.Remove(rocks))
	z3, err := os.Create(rocks)
	require.NoError(t, err)
	require.NoError(t, zip.NewWriter(z3).Close())
	require.NoError(t, z3.Close())

	assert.NoError(t, CheckClasspath([]string{mine, classes}, "4.3.1", "10.1.3"), "the same Kafka version is allowed")
	err = CheckClasspath([]string{mine, fat}, "4.3.1", "10.1.3")
	require.Error(t, err)
	assert.Contains(t, err.Error(), fat+" holds kafka-clients 4.2.0, but the run asks for Kafka 4.3.1")
	err = CheckClasspath([]string{classes}, "4.3.0", "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds kafka-streams 4.3.1")
	err = CheckClasspath([]string{rocks}, "4.3.1", "10.1.3")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds rocksdbjni 9.7.3")
	assert.Equal(t, "10.1.3", RocksDBVersionOf([]string{"/m2/org/rocksdb/rocksdbjni/10.1.3/rocksdbjni-10.1.3.jar"}))
}

// TestResolveMaven resolves a coordinate in ~/.m2 (JNA, which make jvm resolves) with Maven, offline, once: the
// second resolution reads the cached classpath file. Skipped without mvn.
func TestResolveMaven(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Maven")
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Skip("no mvn")
	}
	cache := t.TempDir()
	a := App{Maven: []string{"net.java.dev.jna:jna:5.14.0"}}
	require.NoError(t, a.ResolveMaven(cache))
	require.Len(t, a.Job.Classpath, 1)
	assert.Equal(t, "jna-5.14.0.jar", filepath.Base(a.Job.Classpath[0]))
	files, err := filepath.Glob(filepath.Join(cache, "app-classpath-*.txt"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b := App{Maven: []string{"net.java.dev.jna:jna:5.14.0"}}
	require.NoError(t, os.Setenv("MVN", "/nonexistent/mvn")) // a second resolution must not run Maven
	defer os.Unsetenv("MVN")
	require.NoError(t, b.ResolveMaven(cache))
	assert.Equal(t, a.Job.Classpath, b.Job.Classpath)
}
