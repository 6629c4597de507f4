package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
)

// TestNeededDiskCoversTheMeasuredPeak: the estimate is at least the state
// directory's measured peak of disk blocks for the kafka-20616 scenario
// (106,071,040 bytes: `du -s --block-size=1` every 200 ms over `rocksleak run
// --models fixed --lifecycles 300 --state-dir` on a 256 MiB ext4; the files'
// sizes peaked at 1,102,616 bytes, the MANIFESTs' 4 MiB preallocations being
// most of the blocks), within a factor of two of it, and grows with the open
// instances.
func TestNeededDiskCoversTheMeasuredPeak(t *testing.T) {
	sc, err := scenarios.Get("kafka-20616")
	require.NoError(t, err)
	need := NeededDisk(sc)
	t.Logf("kafka-20616 needs about %d bytes", need)
	const peakBlocks = 106_071_040
	assert.GreaterOrEqual(t, need, int64(peakBlocks))
	assert.Less(t, need, int64(2*peakBlocks))
	more := sc
	more.Tasks *= 2
	assert.Greater(t, NeededDisk(more), need)
	for _, name := range scenarios.Names() {
		c, err := scenarios.Get(name)
		require.NoError(t, err)
		t.Logf("%s: %d bytes", name, NeededDisk(c))
	}
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
