package harness

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
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

func TestNonMarkerKeepsOnlyRealErrors(t *testing.T) {
	marker := fmt.Errorf("%w: %v", lifecycle.ErrMarkerWrite, errors.New("Invalid argument: Sync writes has to enable WAL."))
	other := errors.New("IO error: lock hold by current process")
	assert.NoError(t, nonMarker(nil))
	assert.NoError(t, nonMarker(marker))
	assert.NoError(t, nonMarker(errors.Join(marker, errors.Join(marker, nil))))
	assert.Equal(t, other.Error(), nonMarker(errors.Join(marker, other)).Error())
	assert.ErrorIs(t, nonMarker(errors.Join(errors.Join(marker), other)), other)
}

func TestRestoreStats(t *testing.T) {
	assert.Equal(t, schema.RestoreStats{}, restoreStats(nil, 0))
	ms := time.Millisecond
	rs := restoreStats([]time.Duration{5 * ms, 1 * ms, 9 * ms, 3 * ms}, 40)
	assert.Equal(t, schema.RestoreStats{Count: 4, P50Ns: int64(3 * ms), MaxNs: int64(9 * ms), Records: 40,
		DurationsNs: []int64{int64(5 * ms), int64(1 * ms), int64(9 * ms), int64(3 * ms)}}, rs, "durations kept in the order they ended")
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

func TestMedianIntervalRanks(t *testing.T) {
	// Known ranks for a 95% distribution-free interval of the median.
	for _, tc := range []struct{ n, j int }{{5, 0}, {6, 1}, {10, 2}, {20, 6}, {100, 40}} {
		assert.Equal(t, tc.j, medianRank(tc.n, 0.025), "n=%d", tc.n)
	}
	var ds []time.Duration
	for i := 1; i <= 10; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	rs := restoreStats(ds, 0)
	assert.Equal(t, int64(2*time.Millisecond), rs.P50LowNs)
	assert.Equal(t, int64(9*time.Millisecond), rs.P50HighNs)
}
