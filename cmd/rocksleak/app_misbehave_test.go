//go:build cgo

package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// The secrets a test's properties hold: none may appear in anything rocksleak writes.
var testSecrets = []string{"s3cr3t-jaas-Xq9", "s3cr3t-keystore-Zr7", "s3cr3t-truststore-Wp4"}

var secretProps = []string{
	`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="app" password="` + testSecrets[0] + `";`,
	"ssl.keystore.password=" + testSecrets[1],
	"producer.ssl.truststore.password=" + testSecrets[2],
}

// TestAppSecretsNeverWritten: a config setter that throws with every config it was given in its message (the
// properties' secrets among them) marks the run failed, exits 1 and names the setter's frame, and no secret of the
// properties appears in the output, result.json, report.md, samples.csv or any file of the run.
func TestAppSecretsNeverWritten(t *testing.T) {
	requireJVM(t, "4.3.1")
	app := exampleApp(t, "dev.rocksleak.examples.KeyValueApp",
		append([]string{"rocksdb.config.setter=dev.rocksleak.examples.MisbehavingSetter"}, secretProps...))
	out := filepath.Join(t.TempDir(), "run")
	stdout, stderr, code := runCLI(t, "run", "--app", app, "--out", out, "--state-dir", stateRoot(t), "--lifecycles", "5")
	assert.Equal(t, 1, code, stdout+stderr)
	res, err := schema.Read(filepath.Join(out, "result.json"))
	require.NoError(t, err, stdout+stderr)
	assert.Equal(t, schema.StatusFailed, res.Status)
	run := res.Runs["kafka-4.3.1"]
	assert.Contains(t, run.Error, "the application's frames: dev.rocksleak.examples.MisbehavingSetter.setConfig(MisbehavingSetter.java:", "the error names the user's frame")
	assert.NotContains(t, run.Error[strings.Index(run.Error, "the application's frames"):], "org.apache.kafka", "and only theirs")
	assert.Contains(t, run.Error, "[redacted]", "the message that held the secrets is kept, redacted")
	texts := map[string]string{"stdout": stdout, "stderr": stderr}
	require.NoError(t, filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, err := os.ReadFile(p)
			texts[p] = string(b)
			return err
		}
		return err
	}))
	assert.Contains(t, texts, filepath.Join(out, "samples.csv"))
	for name, text := range texts {
		for _, s := range testSecrets {
			assert.NotContains(t, text, s, "%s holds a secret of the properties", name)
		}
	}
}

// TestAppMisbehaviourIsContained: the application throwing, calling System.exit, hanging, or allocating without
// bound ends its run marked failed, exit status 1, with an error naming its own frames and no other (Kafka's are
// left out): MisbehavingApp.misbehave, or for the runaway allocation, seen after it, where the main thread is then or
// (when it has left the application's code) where it was when the RSS grew most (AppWatchTest has both).
func TestAppMisbehaviourIsContained(t *testing.T) {
	requireJVM(t, "4.3.1")
	for _, tc := range []struct {
		how   string
		args  []string
		words string
	}{
		{"throw", nil, "the application's own bug"},
		{"exit", nil, "System.exit"},
		{"hang", nil, "hung"},
		{"allocate", []string{"--max-rss", "1GiB"}, "runaway allocation"},
	} {
		t.Run(tc.how, func(t *testing.T) {
			app := exampleApp(t, "dev.rocksleak.examples.MisbehavingApp", []string{"example.misbehave=" + tc.how},
				"hang_after: 3s")
			res, out, code := runApp(t, app, append([]string{"--lifecycles", "20"}, tc.args...)...)
			assert.Equal(t, 1, code, out)
			require.NotNil(t, res, out)
			assert.Equal(t, schema.StatusFailed, res.Status)
			e := res.Runs["kafka-4.3.1"].Error
			t.Logf("the run's error: %s", e)
			assert.Contains(t, e, tc.words)
			frames := e[strings.Index(e, "the application's frames: "):]
			assert.Contains(t, frames, "dev.rocksleak.examples.", "names the application's frames")
			assert.NotContains(t, frames, "org.apache.kafka.", "names the application's frames only")
			if tc.how != "allocate" { // a runaway allocation is seen after it: the main thread may be on by then
				assert.Contains(t, e, "dev.rocksleak.examples.MisbehavingApp.misbehave(MisbehavingApp.java:", "names the application's frame")
			}
		})
	}
}

// withJar puts jar first on an app file's classpath.
func withJar(t *testing.T, app, jar string) string {
	t.Helper()
	b, err := os.ReadFile(app)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(app, []byte(strings.Replace(string(b), "classpath: [", "classpath: ["+jar+", ", 1)), 0o644))
	return app
}

// TestAppBadInputExitsTwo: what cannot run exits 2 before any work, naming it.
func TestAppBadInputExitsTwo(t *testing.T) {
	requireJVM(t, "4.3.1")
	// A jar holding another Kafka Streams version, as a fat jar does (its version file).
	fat := filepath.Join(t.TempDir(), "app-with-kafka.jar")
	f, err := os.Create(fat)
	require.NoError(t, err)
	z := zip.NewWriter(f)
	w, err := z.Create("kafka/kafka-streams-version.properties")
	require.NoError(t, err)
	_, err = w.Write([]byte("commitId=0\nversion=4.2.0\n"))
	require.NoError(t, err)
	require.NoError(t, z.Close())
	require.NoError(t, f.Close())
	kv := "dev.rocksleak.examples.KeyValueApp"
	for _, tc := range []struct {
		name, words string
		app         string
		args        []string
	}{
		{"class not found", "class dev.rocksleak.examples.NoSuchApp not found", exampleApp(t, "dev.rocksleak.examples.NoSuchApp", nil), nil},
		{"no pipe method", "has no public method topology(Properties)", exampleApp(t, "dev.rocksleak.examples.LeakySetter", nil), nil},
		{"setter not found", "rocksdb.config.setter (in ", exampleApp(t, kv, []string{"rocksdb.config.setter=com.example.Missing"}), nil},
		{"another Kafka", "holds kafka-streams 4.2.0, but the run asks for Kafka 4.3.1", withJar(t, exampleApp(t, kv, nil), fat), nil},
		{"a Go model", "does not run an application", exampleApp(t, kv, nil), []string{"--models", "fixed"}},
		{"a leak the app path does not add", "not applied to an application's stores", exampleApp(t, kv, nil),
			[]string{"--models", "kafka-4.3.1+synthetic", "--set", "synthetic_leak_bytes=1024"}},
		{"unknown field", `unknown field "stores"`, exampleApp(t, kv, nil, "stores: 3"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			stdout, stderr, code := runCLI(t, append([]string{"run", "--app", tc.app, "--out", out, "--lifecycles", "5"}, tc.args...)...)
			assert.Equal(t, 2, code, stdout+stderr)
			assert.Contains(t, stderr, tc.words)
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "no result is written: nothing ran")
			assert.False(t, strings.Contains(stdout, "lifecycles in"), "no child ran")
		})
	}
}
