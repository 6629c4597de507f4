package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
)

// TestParentSurvivesChildCrash: children that abort or exit without a summary
// are reported with a clear error, and the remaining models still run.
func TestParentSurvivesChildCrash(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	for _, tc := range []struct {
		script, want string
	}{
		{"kill -ABRT $$", "killed by signal aborted"},
		{"echo 'Assertion last_ref failed' >&2; exit 3", "exited with status 3; last output: Assertion last_ref failed"},
		{"exit 0", "ended without a summary"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			out, err := Run(context.Background(), Config{Scenario: sc, Models: []string{"leaky", "fixed"},
				Exe: "/bin/sh", ChildArgs: []string{"-c", tc.script}, StateRoot: t.TempDir()})
			require.ErrorIs(t, err, ErrChild)
			require.Len(t, out.Runs, 2, "the second model runs after the first one's child failed")
			for _, r := range out.Runs {
				assert.Contains(t, r.Error, tc.want)
			}
			assert.False(t, out.Interrupted)
		})
	}
}

func TestPreflightNamesTheLimitARunNeeds(t *testing.T) {
	sc, err := scenarios.Get("scale")
	require.NoError(t, err)
	need := NeededFDs(sc)
	assert.GreaterOrEqual(t, need, 64*32*FDsPerDB, "every live segment, plus pinned DBs")
	assert.LessOrEqual(t, need, 20000, "2,048 live segments within a 20,000-FD limit")
	require.NoError(t, Preflight(sc), "the catalogue's scale scenario fits this machine's limit")
	require.NoError(t, sc.Set("tasks=100"))
	err = Preflight(sc)
	require.ErrorIs(t, err, ErrLimits)
	assert.Contains(t, err.Error(), "ulimit -n")
	assert.Contains(t, err.Error(), "100 tasks × 1 stores × 32 live segments")
}
