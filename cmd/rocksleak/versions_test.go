package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVersionsBadInput: each bad flag of "rocksleak versions" is exit status 2 with a message naming the flag,
// before anything runs.
func TestVersionsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--versions", "4.3.0,9.9.9"}, "--versions"},
		{[]string{"--versions", "4.3.0", "--lifecycles", "0"}, "--lifecycles"},
		{[]string{"--result", "/nonexistent/result.json"}, "result"},
		{[]string{"--bogus"}, "bogus"},
	} {
		err := run(context.Background(), io.Discard, io.Discard, append([]string{"versions"}, tc.args...))
		require.Error(t, err, "%v", tc.args)
		assert.Equal(t, 2, exitCode(err), "%v: %v", tc.args, err)
		assert.True(t, strings.Contains(err.Error(), tc.flag), "%v: the error names %s: %v", tc.args, tc.flag, err)
	}
}

// TestVersionModelsOldestFirst: --versions picks rows of the table, oldest first whatever the order given, and
// accepts the model spelling.
func TestVersionModelsOldestFirst(t *testing.T) {
	got, err := versionModels("4.4.0,kafka-4.3.1,4.2.2,4.3.0")
	require.NoError(t, err)
	assert.Equal(t, []string{"kafka-4.2.2", "kafka-4.3.0", "kafka-4.3.1", "kafka-4.4.0"}, got)
	all, err := versionModels("")
	require.NoError(t, err)
	assert.Equal(t, "kafka-4.0.0", all[0], "the default is every row of versions.tsv, from the first")
	assert.Contains(t, all, "kafka-4.2.2")
	assert.Contains(t, all, "kafka-4.3.1")
}

// TestCrosscheckBadInput: bad flags of "rocksleak crosscheck" are exit status 2 naming the flag, before any run;
// a --doc without the generated part's markers is refused rather than overwritten.
func TestCrosscheckBadInput(t *testing.T) {
	doc := t.TempDir() + "/doc.md"
	require.NoError(t, os.WriteFile(doc, []byte("# no markers\n"), 0o644))
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--lifecycles", "0"}, "--lifecycles"},
		{[]string{"--doc", doc}, "--doc"},
		{[]string{"--doc", doc + ".missing"}, "--doc"},
		{[]string{"--result", "/nonexistent/result.json"}, "result"},
	} {
		err := run(context.Background(), io.Discard, io.Discard, append([]string{"crosscheck"}, tc.args...))
		require.Error(t, err, "%v", tc.args)
		assert.Equal(t, 2, exitCode(err), "%v: %v", tc.args, err)
		assert.Contains(t, err.Error(), tc.flag, "%v", tc.args)
	}
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	assert.Equal(t, "# no markers\n", string(b), "the refused doc is left as it was")
}
