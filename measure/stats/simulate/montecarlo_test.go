package simulate

import "testing"

// skipMonteCarloInShort skips a Monte Carlo coverage test (many seeded
// series, one goroutine, no concurrency to race) under -short: make test
// runs it in its main pass and skips it in its -race -short pass of the
// pure packages, where the race detector slows it tenfold and finds nothing.
func skipMonteCarloInShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("Monte Carlo coverage test: runs in make test's main pass, skipped under -short (its -race pass)")
	}
}
