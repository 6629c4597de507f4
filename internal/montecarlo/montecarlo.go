// Package montecarlo holds what the Monte Carlo coverage tests of the pure packages share.
package montecarlo

import "testing"

// SkipInShort skips a Monte Carlo coverage test (many seeded series, one goroutine, no concurrency to race) under
// -short: make test runs it in its main pass and skips it in its -race -short pass of the pure packages, where the
// race detector slows it tenfold and finds nothing.
func SkipInShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("Monte Carlo coverage test: runs in make test's main pass, skipped under -short (its -race pass)")
	}
}
