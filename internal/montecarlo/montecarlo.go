// Package montecarlo holds what the Monte Carlo coverage tests of the pure packages share.
package montecarlo

import "testing"

// SkipInShort skips a Monte Carlo coverage test (many seeded series, one goroutine, no concurrency to race) under
// -short, for a quick `go test -short` (and under the race detector, which slows it tenfold and finds nothing): make
// test runs it in its main pass.
func SkipInShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("Monte Carlo coverage test: runs in make test's main pass, skipped under -short")
	}
}
