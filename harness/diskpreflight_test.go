package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
)

// TestNeededDiskCoversTheMeasuredPeak: the estimate is at least the state
// directory's measured peak for the kafka-20616 scenario (996,182 bytes, see
// DiskPerInstance), within a factor of four of it, and grows with the open
// instances.
func TestNeededDiskCoversTheMeasuredPeak(t *testing.T) {
	sc, err := scenarios.Get("kafka-20616")
	require.NoError(t, err)
	need := NeededDisk(sc)
	t.Logf("kafka-20616 needs about %d bytes", need)
	assert.GreaterOrEqual(t, need, int64(996_182))
	assert.Less(t, need, int64(4*996_182))
	more := sc
	more.Tasks *= 2
	assert.Greater(t, NeededDisk(more), need)
}

// TestCheckStateDir: a missing directory and a file are refused, naming the
// path; a writable directory with enough space passes; no file system has
// 1 EiB free.
func TestCheckStateDir(t *testing.T) {
	dir := t.TempDir()
	assert.ErrorContains(t, CheckStateDir(dir+"/missing", 0), "does not exist")
	assert.NoError(t, CheckStateDir(dir, 1))
	assert.ErrorContains(t, CheckStateDir(dir, 1<<60), "free, but the scenario needs about")
}
