package main

import (
	"bytes"
	"context"
	"testing"
)

// runCLI runs the command line in this process, as main does, and returns what
// it printed and its exit code; it builds with and without cgo, so the pure
// commands' tests (report, gate, plan) run in both.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	err := run(context.Background(), &o, &e, args)
	if err != nil {
		e.WriteString("rocksleak: " + err.Error() + "\n")
	}
	return o.String(), e.String(), exitCode(err)
}
