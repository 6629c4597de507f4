package schema

import "strconv"

// Triggers: why a [Sample] was taken.
const (
	TriggerStart     = "start"     // before the first lifecycle
	TriggerLifecycle = "lifecycle" // after a store lifecycle completed
	TriggerTimer     = "timer"     // on the sampling timer
	TriggerEnd       = "end"       // after the last lifecycle
	// An application's run (rocksleak run --app) also samples a task's life while its stores are open: after its
	// first step and after its last, before the close. The fits across lifecycles leave both out (see
	// [BetweenLifecycles]); analysis.WithinLifecycle reads them.
	TriggerAfterOpen   = "after_open"
	TriggerBeforeClose = "before_close"
)

// WithinLifecycle says whether s was taken inside a lifecycle with its stores open (TriggerAfterOpen or
// TriggerBeforeClose), not between lifecycles.
func (s Sample) WithinLifecycle() bool {
	return s.Trigger == TriggerAfterOpen || s.Trigger == TriggerBeforeClose
}

// BetweenLifecycles returns the samples taken between lifecycles (all but the WithinLifecycle ones), in order: the
// series the fits across lifecycles read. It returns samples itself when there is none to leave out.
func BetweenLifecycles(samples []Sample) []Sample {
	n := 0
	for _, s := range samples {
		if s.WithinLifecycle() {
			n++
		}
	}
	if n == 0 {
		return samples
	}
	out := make([]Sample, 0, len(samples)-n)
	for _, s := range samples {
		if !s.WithinLifecycle() {
			out = append(out, s)
		}
	}
	return out
}

// Sample is one row of a model's time series: a [Memory] reading together with the counters it will be regressed
// on. All numbers are raw: bytes, nanoseconds, counts.
type Sample struct {
	Model        string `json:"model"`
	Seq          int    `json:"seq"`           // position in the model's series
	ElapsedNs    int64  `json:"elapsed_ns"`    // since the model's child process started running the model
	Trigger      string `json:"trigger"`       // TriggerStart, TriggerLifecycle, TriggerTimer, TriggerEnd, or an app's TriggerAfterOpen, TriggerBeforeClose
	Lifecycles   int64  `json:"lifecycles"`    // store lifecycles completed so far
	FailedCloses int64  `json:"failed_closes"` // lifecycles whose Close returned an error
	InitFailures int64  `json:"init_failures"` // lifecycles whose store failed to open
	// TaskErrors is the number of errors that escaped a store to its task so far (Summary.TaskErrors): the
	// parent compares it with Lifecycles to stop a model that spins on a fault that does not pass (see
	// harness.Progress). Absent (0) in results written before it was recorded.
	TaskErrors int64 `json:"task_errors"`
	Records    int64 `json:"records"` // records written so far
	// Restores is the number of restores (wipe, reopen and changelog replay of a store whose last close was unclean
	// under exactly-once) completed so far, and RestoredRecords the changelog records they replayed. The RSS fits
	// take RestoredRecords as a regressor (see analysis.FitSamples). Absent (0) in results written before they
	// were recorded.
	Restores        int64 `json:"restores"`
	RestoredRecords int64 `json:"restored_records"`
	Memory
	LiveNatives map[string]int64 `json:"live_natives"` // ledger live counts by kind
	RocksDB     RocksDBMemory    `json:"rocksdb"`
}

// Memory is one reading of a process's memory, in raw units.
type Memory struct {
	// RSS is the resident set in bytes: resident pages of /proc/<pid>/statm times the page size.
	RSS int64 `json:"rss"`
	// VMS is the virtual memory size in bytes: total pages of /proc/<pid>/statm times the page size.
	VMS int64 `json:"vms"`
	// FDs is the number of open file descriptors (entries of /proc/<pid>/fd), not counting the one the sampler
	// itself holds to list them.
	FDs int `json:"fds"`
	// NativeHeap is the number of bytes in use by the C allocator: glibc mallinfo2() uordblks+hblkhd, or jemalloc
	// stats.allocated when jemalloc is the allocator (see measure.Sampler.Allocator). Sizes are as the allocator counts
	// them (chunks or size classes, a little more than requested); nothing of the Go heap is included.
	// [Unavailable] for another process.
	NativeHeap int64 `json:"native_heap"`
	// GoHeap is the number of bytes of Go heap objects: live ones and dead ones the GC has not yet freed
	// (runtime/metrics "/memory/classes/heap/objects:bytes"). [Unavailable] for another process.
	GoHeap int64 `json:"go_heap"`
	// RuntimeBytes is the resident memory the instrument's own runtime holds, in bytes: what of RSS is not the code
	// under test's. The Go child: the Go runtime's mapped memory less what it returned to the OS (runtime/metrics
	// "/memory/classes/total:bytes" − "/memory/classes/heap/released:bytes"; see measure.Sampler). The JVM child: the
	// JVM's committed heap, metaspace and code cache (Native Memory Tracking). The code's RSS is RSS − RuntimeBytes
	// (see [Sample.CodeRSS]). 0 in results written before it was recorded; [Unavailable] when not read.
	RuntimeBytes int64 `json:"runtime_bytes"`
	// RuntimeMalloc is the part of NativeHeap the instrument's own runtime allocated, in bytes: what of the C
	// allocator's bytes in use are not the code under test's. The JVM child: the JVM's own malloc'd bytes by Native
	// Memory Tracking (its summary's "malloc:" total: compiler arenas, GC and symbol tables, NIO buffers, NMT
	// itself), which swing by 10–20 MiB between samples while RocksDB's share moves by kilobytes. The Go child: 0
	// (the Go runtime does not use the C allocator). The code's native heap is NativeHeap − RuntimeMalloc (see
	// [Memory.CodeNativeHeap]). 0 in results written before it was recorded; [Unavailable] when not read.
	RuntimeMalloc int64 `json:"runtime_malloc"`
}

// CodeNativeHeap is the native heap of the code under test: NativeHeap less what the instrument's runtime
// allocated from the same allocator (RuntimeMalloc), or NativeHeap itself when RuntimeMalloc was not read (≤ 0) or
// NativeHeap is Unavailable.
func (m Memory) CodeNativeHeap() int64 {
	if m.RuntimeMalloc > 0 && m.NativeHeap != Unavailable {
		return m.NativeHeap - m.RuntimeMalloc
	}
	return m.NativeHeap
}

// CodeRSS is the RSS of the code under test: RSS less what the instrument's runtime holds (RuntimeBytes), or the
// whole RSS when RuntimeBytes was not read (≤ 0).
func (m Memory) CodeRSS() int64 {
	if m.RuntimeBytes > 0 {
		return m.RSS - m.RuntimeBytes
	}
	return m.RSS
}

// Unavailable is the value of [Memory.NativeHeap] and [Memory.GoHeap] when the sampler does not target the calling
// process: both are read from the calling process's own allocators and cannot be read for another one.
const Unavailable int64 = -1

// RocksDBMemory is RocksDB's own accounting, in bytes, summed over the open DBs. The harness reads the DBs in
// rounds spread over the samples (a bounded number per sample: see goengine.RocksDBFiguresDBsPerSample); the
// byte fields carry a round's sums on the sample that completes it and are Unavailable on the others. OpenDBs
// is the number of DBs open when the sample was taken, counted on every sample.
type RocksDBMemory struct {
	MemTables    int64 `json:"memtables"`     // rocksdb.cur-size-all-mem-tables
	TableReaders int64 `json:"table_readers"` // rocksdb.estimate-table-readers-mem
	BlockCache   int64 `json:"block_cache"`   // rocksdb.block-cache-usage
	OpenDBs      int   `json:"open_dbs"`      // number of DBs summed over (a count, not bytes)
	// The block caches of the options the stores were opened with (Kafka's own or a config setter's), read by the
	// JVM child of an application run on every sample, between task lives too: how many are still open, each
	// counted once however many stores share it; their summed usage (RocksJava's Cache.getUsage); and their summed
	// capacity, for those whose capacity Kafka's block-cache-capacity metric has reported (a cache's capacity is
	// known once a store using it has been sampled open). A cache that outlives its stores (one shared by every
	// store, as Kafka's bounded-memory setter builds it) fills across task lives toward its capacity. 0 when none
	// is open or nothing read them (the Go engine; a scenario run).
	Caches         int   `json:"caches"`
	CachesUsage    int64 `json:"caches_usage"`
	CachesCapacity int64 `json:"caches_capacity"`
}

var csvFixedColumns = [...]string{
	"model", "seq", "elapsed_ns", "trigger", "lifecycles", "failed_closes", "init_failures", "task_errors", "records",
	"restores", "restored_records", "rss", "vms", "fds", "native_heap", "go_heap", "runtime_bytes",
	"runtime_malloc", "rocksdb_memtables", "rocksdb_table_readers", "rocksdb_block_cache", "rocksdb_open_dbs",
	"rocksdb_caches", "rocksdb_caches_usage", "rocksdb_caches_capacity",
}

// CSVHeader returns the column names matching [Sample.CSVRow] for the same kinds: the fixed columns, then
// "live_<kind>" for each ledger kind in the order given.
func CSVHeader(kinds []string) []string {
	h := make([]string, 0, len(csvFixedColumns)+len(kinds))
	h = append(h, csvFixedColumns[:]...)
	for _, k := range kinds {
		h = append(h, "live_"+k)
	}
	return h
}

// CSVRow renders s as one CSV record in the column order of [CSVHeader] with the same kinds, numbers in raw
// decimal. A kind absent from LiveNatives renders as 0.
func (s Sample) CSVRow(kinds []string) []string {
	i := strconv.FormatInt
	r := make([]string, 0, len(csvFixedColumns)+len(kinds))
	r = append(r,
		s.Model, strconv.Itoa(s.Seq), i(s.ElapsedNs, 10), s.Trigger,
		i(s.Lifecycles, 10), i(s.FailedCloses, 10), i(s.InitFailures, 10), i(s.TaskErrors, 10), i(s.Records, 10),
		i(s.Restores, 10), i(s.RestoredRecords, 10), i(s.RSS, 10), i(s.VMS, 10), strconv.Itoa(s.FDs), i(s.NativeHeap, 10), i(s.GoHeap, 10),
		i(s.RuntimeBytes, 10), i(s.RuntimeMalloc, 10),
		i(s.RocksDB.MemTables, 10), i(s.RocksDB.TableReaders, 10), i(s.RocksDB.BlockCache, 10),
		strconv.Itoa(s.RocksDB.OpenDBs), strconv.Itoa(s.RocksDB.Caches), i(s.RocksDB.CachesUsage, 10),
		i(s.RocksDB.CachesCapacity, 10),
	)
	for _, k := range kinds {
		r = append(r, i(s.LiveNatives[k], 10))
	}
	return r
}
