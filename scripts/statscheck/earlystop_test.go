package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEarlyStopTableSeesTheIssue44Cases: the early-stop table, at a few
// seeded runs per case, tells the guarded early stop from the unguarded
// one: the unguarded rule contradicts the full run on the leak that starts
// at 40% of the run (it calls "no leak" before the leak starts), the
// guarded rule contradicts it nowhere, and on the straight 11 KiB leak
// (positive control) both stop early on "leak". statscheck -early runs the
// same table at 200 runs per case.
func TestEarlyStopTableSeesTheIssue44Cases(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 15 runs of 1,500 lifecycles through the analysis")
	}
	rows, err := earlyStop(3, 11, 1)
	require.NoError(t, err)
	byName := map[string]earlyRow{}
	for _, r := range rows {
		byName[r.name] = r
		assert.Zero(t, r.contradict, "%s: the guarded early stop contradicts the full run", r.name)
	}
	late := byName["leak 6 KiB from 40% of the run"]
	assert.Equal(t, 3, late.unguardedContradict, "the unguarded rule calls the late leak \"no leak\"")
	leaky := byName["leak 11 KiB, RSS +16 KiB (leaky model)"]
	assert.Equal(t, 3, leaky.stoppedEarly)
	assert.Equal(t, 3, leaky.early["leak"])
}
