package schema

import (
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ReadSamplesCSV reads a samples.csv written by SamplesCSV: the samples of each
// model in file order. A path ending in ".gz" is read through gzip (the
// tests' fixtures keep real runs' samples so).
func ReadSamplesCSV(path string) (map[string][]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBadResult, path, err)
		}
		r = zr
	}
	out, err := ParseSamplesCSV(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadResult, path, err)
	}
	return out, nil
}

// ParseSamplesCSV parses the content of a samples.csv (see [ReadSamplesCSV]). The columns "restores",
// "restored_records" and "runtime_bytes" may be absent (files written before they were recorded): they read as 0.
func ParseSamplesCSV(r io.Reader) (map[string][]Sample, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, need := range CSVHeader(nil) {
		if _, ok := col[need]; !ok && !optionalCSVColumns[need] {
			return nil, fmt.Errorf("header: missing column %q", need)
		}
	}
	out := map[string][]Sample{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		var perr error
		num := func(name string) int64 {
			if _, ok := col[name]; !ok {
				return 0 // an optional column absent from the file
			}
			v, err := strconv.ParseInt(rec[col[name]], 10, 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("line %d: column %s: %w", line, name, err)
			}
			return v
		}
		s := Sample{
			Model: rec[col["model"]], Seq: int(num("seq")), ElapsedNs: num("elapsed_ns"), Trigger: rec[col["trigger"]],
			Lifecycles: num("lifecycles"), FailedCloses: num("failed_closes"), InitFailures: num("init_failures"), TaskErrors: num("task_errors"),
			Records: num("records"), Restores: num("restores"), RestoredRecords: num("restored_records"),
			Memory: Memory{RSS: num("rss"), VMS: num("vms"), FDs: int(num("fds")),
				NativeHeap: num("native_heap"), GoHeap: num("go_heap"), RuntimeBytes: num("runtime_bytes"),
				RuntimeMalloc: num("runtime_malloc")},
			RocksDB: RocksDBMemory{MemTables: num("rocksdb_memtables"), TableReaders: num("rocksdb_table_readers"),
				BlockCache: num("rocksdb_block_cache"), OpenDBs: int(num("rocksdb_open_dbs")),
				Caches: int(num("rocksdb_caches")), CachesUsage: num("rocksdb_caches_usage"),
				CachesCapacity: num("rocksdb_caches_capacity")},
			LiveNatives: map[string]int64{},
		}
		for name, i := range col {
			if k, ok := strings.CutPrefix(name, "live_"); ok {
				if v := num(name); v != 0 {
					s.LiveNatives[k] = v
				}
				_ = i
			}
		}
		if perr != nil {
			return nil, perr
		}
		out[s.Model] = append(out[s.Model], s)
	}
}

// optionalCSVColumns are the columns of [CSVHeader] that older files lack.
var optionalCSVColumns = map[string]bool{"restores": true, "restored_records": true, "runtime_bytes": true, "runtime_malloc": true,
	"task_errors": true, "rocksdb_caches": true, "rocksdb_caches_usage": true, "rocksdb_caches_capacity": true}
