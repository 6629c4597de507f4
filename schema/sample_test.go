package schema

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
			Memory: Memory{RSS: 31_473_664, VMS: 1_300_004_864, FDs: 6, NativeHeap: 626_074, GoHeap: 1_050_000,
				RuntimeBytes: 6_324_224, RuntimeMalloc: 12_288},
			LiveNatives: map[string]int64{"options": 1},
			RocksDB:     RocksDBMemory{},
		},
		{
			Model: "leaky, with \"quotes\"", Seq: 2, ElapsedNs: 9_223_372_036_854_775_807, Trigger: TriggerTimer,
			Lifecycles: 2, FailedCloses: 1, InitFailures: 1, TaskErrors: 3, Records: 240, Restores: 1, RestoredRecords: 96,
			Memory: Memory{RSS: 31_490_048, VMS: 1_300_008_960, FDs: 9, NativeHeap: Unavailable, GoHeap: Unavailable,
				RuntimeBytes: Unavailable},
			LiveNatives: map[string]int64{"db": 1, "options": 2, "column_family": 2, "unlisted": 7},
			RocksDB: RocksDBMemory{MemTables: 2_097_152, TableReaders: 4_096, BlockCache: 8_388_608, OpenDBs: 1,
				Caches: 1, CachesUsage: 5_767_168, CachesCapacity: 67_108_864},
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

// TestCodeNativeHeap: the code's native heap leaves out what the instrument's runtime allocated from the same
// allocator, when that was read, and stays Unavailable when the native heap was not read.
func TestCodeNativeHeap(t *testing.T) {
	for _, c := range []struct {
		name                 string
		native, malloc, want int64
	}{
		{"read", 40 << 20, 15 << 20, 25 << 20},
		{"not recorded (0)", 40 << 20, 0, 40 << 20},
		{"native heap unavailable", Unavailable, 15 << 20, Unavailable},
	} {
		m := Memory{NativeHeap: c.native, RuntimeMalloc: c.malloc}
		assert.Equal(t, c.want, m.CodeNativeHeap(), c.name)
	}
}

// TestCodeRSS: the code's RSS leaves out what the instrument's runtime holds, when that was read.
func TestCodeRSS(t *testing.T) {
	assert.Equal(t, int64(31_473_664-6_324_224), goldenSamples()[1].CodeRSS())
	assert.Equal(t, int64(31_490_048), goldenSamples()[2].CodeRSS(), "runtime_bytes unavailable (-1): the whole RSS")
	assert.Equal(t, int64(31_457_280), goldenSamples()[0].CodeRSS(), "runtime_bytes not recorded (0): the whole RSS")
}

func TestCSVHeaderNoKinds(t *testing.T) {
	h := CSVHeader(nil)
	assert.Equal(t, "model", h[0])
	assert.Equal(t, "rocksdb_caches_capacity", h[len(h)-1])
	assert.Len(t, Sample{}.CSVRow(nil), len(h))
}

func TestSampleJSON(t *testing.T) {
	b, err := json.Marshal(goldenSamples()[2])
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))

	for _, k := range []string{
		"model", "seq", "elapsed_ns", "trigger", "lifecycles", "failed_closes", "init_failures", "task_errors", "records",
		"restores", "restored_records", "rss", "vms", "fds", "native_heap", "go_heap", "runtime_bytes", "runtime_malloc", "live_natives",
		"rocksdb",
	} {
		assert.Contains(t, got, k)
	}
	assert.Len(t, got, 20, "no other keys: %s", b)
	assert.Equal(t, map[string]any{
		"memtables": float64(2_097_152), "table_readers": float64(4_096), "block_cache": float64(8_388_608),
		"open_dbs": float64(1), "caches": float64(1), "caches_usage": float64(5_767_168),
		"caches_capacity": float64(67_108_864),
	}, got["rocksdb"])

	var back Sample
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, goldenSamples()[2], back)
}

func TestParseSamplesCSVRoundTripAndOlderFiles(t *testing.T) {
	got, err := ParseSamplesCSV(bytes.NewReader(goldenCSV(t)))
	require.NoError(t, err)
	last := got[goldenSamples()[2].Model]
	require.Len(t, last, 1)
	assert.Equal(t, int64(1), last[0].Restores)
	assert.Equal(t, int64(96), last[0].RestoredRecords)
	assert.Equal(t, int64(6_324_224), got["leaky"][1].RuntimeBytes)

	// A file written before the restore columns existed: they read as 0, the rest as written.
	old := "model,seq,elapsed_ns,trigger,lifecycles,failed_closes,init_failures,records,rss,vms,fds,native_heap,go_heap," +
		"rocksdb_memtables,rocksdb_table_readers,rocksdb_block_cache,rocksdb_open_dbs\n" +
		"leaky,0,0,start,3,1,0,120,31457280,1300000768,6,614400,1048576,0,0,0,0\n"
	got, err = ParseSamplesCSV(strings.NewReader(old))
	require.NoError(t, err)
	require.Len(t, got["leaky"], 1)
	assert.Equal(t, int64(0), got["leaky"][0].Restores)
	assert.Equal(t, int64(0), got["leaky"][0].RuntimeBytes)
	assert.Equal(t, int64(31457280), got["leaky"][0].CodeRSS(), "no runtime figure: the code's RSS is the RSS")
	assert.Equal(t, int64(614400), got["leaky"][0].CodeNativeHeap(), "no runtime malloc: the code's native heap is the native heap")
	assert.Equal(t, int64(3), got["leaky"][0].Lifecycles)
	assert.Equal(t, int64(31457280), got["leaky"][0].RSS)

	// A required column missing is still an error naming it.
	_, err = ParseSamplesCSV(strings.NewReader("model,seq\nx,1\n"))
	require.ErrorContains(t, err, `missing column "elapsed_ns"`)
}

// TestReadSamplesCSVGzip: a samples.csv.gz reads as the same file uncompressed; a ".gz" that is not gzip is an
// error naming the file.
func TestReadSamplesCSVGzip(t *testing.T) {
	csvBytes := goldenCSV(t)
	dir := t.TempDir()
	plain, zipped, bad := filepath.Join(dir, "samples.csv"), filepath.Join(dir, "samples.csv.gz"), filepath.Join(dir, "bad.csv.gz")
	require.NoError(t, os.WriteFile(plain, csvBytes, 0o644))
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, err := zw.Write(csvBytes)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(zipped, z.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(bad, csvBytes, 0o644))
	want, err := ReadSamplesCSV(plain)
	require.NoError(t, err)
	got, err := ReadSamplesCSV(zipped)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	_, err = ReadSamplesCSV(bad)
	require.ErrorContains(t, err, bad)
}

// goldenCSV is goldenSamples as a samples.csv.
func goldenCSV(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	require.NoError(t, w.Write(CSVHeader(goldenKinds)))
	for _, s := range goldenSamples() {
		require.NoError(t, w.Write(s.CSVRow(goldenKinds)))
	}
	w.Flush()
	require.NoError(t, w.Error())
	return buf.Bytes()
}
