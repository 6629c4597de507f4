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

import (
	"errors"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// ErrParse is wrapped by every error caused by a /proc file whose content cannot be parsed. The error text carries
// the path of the file.
var ErrParse = errors.New("measure: cannot parse")

// Unavailable is the value of [Memory.NativeHeap] and [Memory.GoHeap] when the sampler does not target the calling
// process (see [schema.Unavailable]).
const Unavailable = schema.Unavailable

// Memory is one reading of a process's memory, in raw units; the type is [schema.Memory], the part of a sample
// this package reads.
type Memory = schema.Memory

// Allocator names the C allocator serving malloc in the calling process: [spec.AllocatorGlibc] or
// [spec.AllocatorJemalloc], the two [Sampler.Allocator] can report.
type Allocator = spec.Allocator
