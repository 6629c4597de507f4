package goengine

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/schema"
)

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
	rs := restoreStats([]restoreEntry{{5 * ms, 10}, {1 * ms, 2}, {9 * ms, 20}, {3 * ms, 8}}, 40)
	assert.Equal(t, schema.RestoreStats{Count: 4, P50Ns: int64(3 * ms), MaxNs: int64(9 * ms), Records: 40,
		DurationsNs: []int64{int64(5 * ms), int64(1 * ms), int64(9 * ms), int64(3 * ms)},
		RecordsEach: []int64{10, 2, 20, 8}}, rs, "durations and records kept in the order the restores ended")
}

func TestMedianIntervalRanks(t *testing.T) {
	// Known ranks for a 95% distribution-free interval of the median.
	for _, tc := range []struct{ n, j int }{{5, 0}, {6, 1}, {10, 2}, {20, 6}, {100, 40}} {
		assert.Equal(t, tc.j, medianRank(tc.n, 0.025), "n=%d", tc.n)
	}
	var ds []restoreEntry
	for i := 1; i <= 10; i++ {
		ds = append(ds, restoreEntry{d: time.Duration(i) * time.Millisecond})
	}
	rs := restoreStats(ds, 0)
	assert.Equal(t, int64(2*time.Millisecond), rs.P50LowNs)
	assert.Equal(t, int64(9*time.Millisecond), rs.P50HighNs)
}
