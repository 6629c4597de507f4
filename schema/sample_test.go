package schema

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/golden"
)

var goldenKinds = []string{"db", "options", "column_family", "iterator"}

func goldenSamples() []Sample {
	return []Sample{
		{
			Model: "leaky", Seq: 0, ElapsedNs: 0, Trigger: TriggerStart,
			Memory: Memory{RSS: 31_457_280, VMS: 1_300_000_768, FDs: 6, NativeHeap: 614_400, GoHeap: 1_048_576},
		},
		{
			Model: "leaky", Seq: 1, ElapsedNs: 25_000_123, Trigger: TriggerLifecycle,
			Lifecycles: 1, FailedCloses: 0, InitFailures: 0, Records: 120,
			Memory:      Memory{RSS: 31_473_664, VMS: 1_300_004_864, FDs: 6, NativeHeap: 626_074, GoHeap: 1_050_000},
			LiveNatives: map[string]int64{"options": 1},
			RocksDB:     RocksDBMemory{},
		},
		{
			Model: "leaky, with \"quotes\"", Seq: 2, ElapsedNs: 9_223_372_036_854_775_807, Trigger: TriggerTimer,
			Lifecycles: 2, FailedCloses: 1, InitFailures: 1, Records: 240,
			Memory:      Memory{RSS: 31_490_048, VMS: 1_300_008_960, FDs: 9, NativeHeap: Unavailable, GoHeap: Unavailable},
			LiveNatives: map[string]int64{"db": 1, "options": 2, "column_family": 2, "unlisted": 7},
			RocksDB:     RocksDBMemory{MemTables: 2_097_152, TableReaders: 4_096, BlockCache: 8_388_608, OpenDBs: 1},
		},
	}
}

func TestCSVGolden(t *testing.T) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	require.NoError(t, w.Write(CSVHeader(goldenKinds)))
	for _, s := range goldenSamples() {
		row := s.CSVRow(goldenKinds)
		require.Len(t, row, len(CSVHeader(goldenKinds)))
		require.NoError(t, w.Write(row))
	}
	w.Flush()
	require.NoError(t, w.Error())

	golden.Check(t, filepath.Join("testdata", "samples.golden.csv"), buf.Bytes())
}

func TestCSVHeaderNoKinds(t *testing.T) {
	h := CSVHeader(nil)
	assert.Equal(t, "model", h[0])
	assert.Equal(t, "rocksdb_open_dbs", h[len(h)-1])
	assert.Len(t, Sample{}.CSVRow(nil), len(h))
}

func TestSampleJSON(t *testing.T) {
	b, err := json.Marshal(goldenSamples()[2])
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))

	for _, k := range []string{
		"model", "seq", "elapsed_ns", "trigger", "lifecycles", "failed_closes", "init_failures", "records",
		"rss", "vms", "fds", "native_heap", "go_heap", "live_natives", "rocksdb",
	} {
		assert.Contains(t, got, k)
	}
	assert.Len(t, got, 15, "no other keys: %s", b)
	assert.Equal(t, map[string]any{
		"memtables": float64(2_097_152), "table_readers": float64(4_096), "block_cache": float64(8_388_608),
		"open_dbs": float64(1),
	}, got["rocksdb"])

	var back Sample
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, goldenSamples()[2], back)
}
