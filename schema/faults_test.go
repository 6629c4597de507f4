package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
)

// TestStorageFaultFailsTheRun: a model whose RocksDB met ENOSPC (counted by
// a Go child, or only quoted in a JVM child's examples) fails the run, and
// the result's first error says so, whatever its verdict; EROFS and EIO
// likewise. Negative controls: an injected failure and a held LOCK are not
// storage faults, and the run stays complete.
func TestStorageFaultFailsTheRun(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	enospc := "task 3 store-1: segment store-1.0: IO error: No space left on device: While appending to file: …/MANIFEST-000001: No space left on device"
	for _, tc := range []struct {
		name string
		sum  Summary
		err  string
		want StorageFaultTally
	}{
		{"Go child's counts", Summary{TaskErrors: 260, TaskErrorList: []string{enospc}, TaskErrorCounts: []int64{260},
			StorageFaults: StorageFaultTally{FaultENOSPC: 9753}}, "", StorageFaultTally{FaultENOSPC: 9753}},
		{"JVM child's examples", Summary{TaskErrors: 40, TaskErrorList: []string{enospc, enospc}}, "", StorageFaultTally{FaultENOSPC: 2}},
		{"ended on EROFS", Summary{}, "changelog: restore times: open …: read-only file system; IO error: While open a file for appending: …/LOCK: Read-only file system",
			StorageFaultTally{FaultEROFS: 1}},
		{"EIO", Summary{TaskErrorList: []string{"IO error: Input/output error"}, TaskErrorCounts: []int64{3}}, "", StorageFaultTally{FaultEIO: 3}},
		{"negative: injected", Summary{TaskErrors: 5, TaskErrorList: []string{"task 0 store-0: injected init failure"}, TaskErrorCounts: []int64{5}}, "", nil},
		{"negative: held LOCK", Summary{TaskErrorList: []string{"IO error: lock hold by current process"}}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum := tc.sum
			sum.Model = "fixed"
			out := &Output{Runs: []*ModelRun{{Model: "fixed", Summary: &sum, Error: tc.err,
				Samples: []Sample{{Lifecycles: 1}, {Lifecycles: 300}}}}}
			r := FromOutput(out, sc, Provenance{})
			assert.Equal(t, tc.want, r.Runs["fixed"].StorageFaults)
			if tc.want == nil {
				assert.Equal(t, StatusComplete, r.Status)
				assert.Empty(t, r.Errors)
				return
			}
			assert.Equal(t, StatusFailed, r.Status)
			require.NotEmpty(t, r.Errors)
			assert.Contains(t, r.Errors[0], "fixed: STATE DISK FAULT: RocksDB returned ")
			for k := range tc.want {
				assert.Contains(t, r.Errors[0], k)
			}
		})
	}
}

// TestKilledChildKeepsItsLastSample: a child that sent no summary (kill -9)
// keeps the lifecycles, counts and ledger of its last sample, marked, its
// records lost not measured. Negative control: a child with a summary keeps
// the summary's figures, unmarked.
func TestKilledChildKeepsItsLastSample(t *testing.T) {
	sc, err := scenarios.Get("smoke")
	require.NoError(t, err)
	samples := []Sample{{Lifecycles: 0}, {Lifecycles: 130, FailedCloses: 4, TaskErrors: 2, Records: 9000, Restores: 3,
		LiveNatives: map[string]int64{"options": 12, "db": 24}}}
	r := FromOutput(&Output{Runs: []*ModelRun{{Model: "kafka-4.3.0", Samples: samples,
		Error: "child process was killed by signal killed"}}}, sc, Provenance{})
	run := r.Runs["kafka-4.3.0"]
	assert.Equal(t, int64(130), run.Lifecycles)
	assert.Equal(t, int64(4), run.FailedCloses)
	assert.Equal(t, int64(3), run.Restore.Count)
	assert.Equal(t, map[string]int64{"options": 12, "db": 24}, run.LedgerAtEnd)
	assert.True(t, run.FromLastSample)
	assert.NotEmpty(t, run.RecordsNotMeasured)
	assert.Equal(t, StatusFailed, r.Status)
	assert.Nil(t, run.StorageFaults, "negative control: nothing told of a storage fault")

	// What the child told as it happened outlives it: its first task error
	// and the storage fault it named.
	enospc := "task 3 store-1: segment store-1.0: IO error: No space left on device: While appending to file: …/MANIFEST-000001: No space left on device"
	told := FromOutput(&Output{Runs: []*ModelRun{{Model: "fixed", Samples: samples, Error: "stopped for making no progress",
		FirstTaskError: enospc, FaultsSeen: []string{FaultENOSPC}}}}, sc, Provenance{})
	assert.Equal(t, []string{enospc}, told.Runs["fixed"].TaskErrorList)
	assert.Equal(t, StorageFaultTally{FaultENOSPC: 1}, told.Runs["fixed"].StorageFaults)
	assert.Contains(t, told.Errors[0], "fixed: STATE DISK FAULT")

	with := FromOutput(&Output{Runs: []*ModelRun{{Model: "fixed", Samples: samples,
		Summary: &Summary{Model: "fixed", Lifecycles: 140, LedgerAtEnd: map[string]int64{}}}}}, sc, Provenance{})
	assert.Equal(t, int64(140), with.Runs["fixed"].Lifecycles)
	assert.False(t, with.Runs["fixed"].FromLastSample)
	assert.Empty(t, with.Runs["fixed"].RecordsNotMeasured)
}
