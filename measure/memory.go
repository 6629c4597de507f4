// Package measure reads the memory of a process cheaply enough to be sampled after every store lifecycle.
//
// It works on numbers, not stores: it never imports RocksDB or a store package. A [Sampler] reads one [Memory]
// (RSS, VMS, open file descriptors, native heap in use, live Go heap) without allocating, in a few microseconds with
// an unfragmented glibc heap (see [Sampler] for what makes it slower); the harness wraps it in a [Sample] with the
// counters the series is regressed on and renders it with [Sample.CSVRow] or encoding/json.
//
// All numbers are raw units: bytes, nanoseconds, counts. Formatting for people happens elsewhere.
//
// The package is Linux-only: it reads /proc and asks the C allocator (glibc mallinfo2, or jemalloc's mallctl when
// jemalloc is preloaded) through cgo.
package measure

import "errors"

// ErrParse is wrapped by every error caused by a /proc file whose content cannot be parsed. The error text carries
// the path of the file.
var ErrParse = errors.New("measure: cannot parse")

// Unavailable is the value of [Memory.NativeHeap] and [Memory.GoHeap] when the sampler does not target the calling
// process: both are read from the calling process's own allocators and cannot be read for another one.
const Unavailable int64 = -1

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
	// stats.allocated when jemalloc is the allocator (see [Sampler.Allocator]). Sizes are as the allocator counts
	// them (chunks or size classes, a little more than requested); nothing of the Go heap is included.
	// [Unavailable] for another process.
	NativeHeap int64 `json:"native_heap"`
	// GoHeap is the number of bytes of Go heap objects: live ones and dead ones the GC has not yet freed
	// (runtime/metrics "/memory/classes/heap/objects:bytes"). [Unavailable] for another process.
	GoHeap int64 `json:"go_heap"`
}

// Allocator names the C allocator serving malloc in the calling process.
type Allocator string

// The allocators [Sampler.Allocator] can report.
const (
	AllocatorGlibc    Allocator = "glibc"
	AllocatorJemalloc Allocator = "jemalloc"
)
