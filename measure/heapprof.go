package measure

/*
#cgo LDFLAGS: -ldl
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef int (*rl_hp_mallctl_fn)(const char *, void *, size_t *, void *, size_t);

// rl_hp_mallctl is jemalloc's mallctl, looked up in the global scope. native.go keeps its own copy in a static of its
// own translation unit, which this file cannot reach.
static rl_hp_mallctl_fn rl_hp_mallctl(void) {
	return (rl_hp_mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
}

// rl_hp_opt_prof reads opt.prof into *on; it returns mallctl's error number (ENOENT when jemalloc was built
// without profiling).
static int rl_hp_opt_prof(bool *on) {
	rl_hp_mallctl_fn f = rl_hp_mallctl();
	size_t sz = sizeof(*on);
	return f("opt.prof", on, &sz, NULL, 0);
}

// rl_hp_dump writes the sampled live heap to path (heap_v2 format) and returns mallctl's error number.
static int rl_hp_dump(const char *path) {
	rl_hp_mallctl_fn f = rl_hp_mallctl();
	return f("prof.dump", NULL, NULL, (void *)&path, sizeof(path));
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"unsafe"

	"github.com/rocksleak/rocksleak/spec"
)

// HeapProfileLgSample is the base-2 logarithm of jemalloc's mean sampling interval in bytes (lg_prof_sample) for a
// profiled child: one allocation is sampled, on average, every 2^15 = 32 KiB allocated (jemalloc's default is
// 2^19). The choice was measured on this machine (2 cores shared with other work, so wall times are noisy) with the
// kafka-20616 leaky model under jemalloc, 324 lifecycles per run, prof_accum on:
//
//	                 CPU s (user+sys) per run, mean       wall ns/lifecycle, mean of 5 interleaved runs
//	unprofiled       3.74 (3 runs) | 3.64 (5 runs)        13.4 ms
//	lg 13            5.18 (1.38×)
//	lg 14            4.65 (1.24×)  | 4.51 (1.24×)         19.2 ms (1.43×; median 1.16×)
//	lg 15            4.20 (1.12×)  | 3.94 (1.08×)         14.4 ms (1.08×; median 0.97×)
//	lg 16            3.98 (1.06×)
//
// The accuracy of a growth estimate of G bytes made of objects much smaller than the interval has a relative standard
// deviation of about sqrt(2^lg/G) (checked with the known-answer child: 64 B × 20000 leaked, 8 runs per interval,
// spreads of 6%, 12%, 14%, 25% at lg 12, 14, 15, 16). At 2^15: 18% for 1 MiB of growth, 5.6% for 10 MiB, 1.8% for
// 100 MiB. lg 14 would halve the variance but does not keep the lifecycle rate within 1/1.3; 15 does.
const HeapProfileLgSample = 15

// ErrHeapProfileUnavailable is wrapped by DumpHeapProfile's error when the process cannot write a heap profile: its
// C allocator is not jemalloc, or jemalloc's heap profiling is off.
var ErrHeapProfileUnavailable = errors.New("measure: jemalloc heap profile unavailable")

// HeapProfileMallocConf returns the MALLOC_CONF value the parent sets, together with LD_PRELOAD of libjemalloc, in the
// environment of a child whose heap is to be profiled:
//
//	prof:true,prof_active:true,lg_prof_sample:<HeapProfileLgSample>,prof_accum:false,prof_prefix:<dir>/jeprof,
//	prof_final:false,prof_leak:false,prof_gdump:false,lg_prof_interval:-1
//
// Profiling is on and sampling from the start. The accumulated counts (alloc_space) are not kept: with prof_accum
// jemalloc never frees a (thread, stack) counter, and its metadata, counted in stats.allocated, grew the profiled
// child's native heap by about 8.7 KiB per lifecycle on kv-clean's fixed model (profile growth 0.9 KiB/lifecycle,
// native-heap slope 9.4 KiB; with prof_accum:false 1.11 and 1.10 KiB). jemalloc writes no dump
// on its own (no final, leak, gdump or interval dumps): the child writes every dump itself with DumpHeapProfile.
// prof_prefix names dir only so that any file jemalloc might still write lands in the run directory. dir must be an
// absolute path without ',' (the MALLOC_CONF separator).
func HeapProfileMallocConf(dir string) (string, error) {
	if !strings.HasPrefix(dir, "/") {
		return "", fmt.Errorf("measure: heap profile directory %q is not absolute", dir)
	}
	if strings.ContainsAny(dir, ",\x00") {
		return "", fmt.Errorf("measure: heap profile directory %q contains ',' or NUL, which MALLOC_CONF cannot carry", dir)
	}
	return fmt.Sprintf("prof:true,prof_active:true,lg_prof_sample:%d,prof_accum:false,prof_prefix:%s/jeprof,"+
		"prof_final:false,prof_leak:false,prof_gdump:false,lg_prof_interval:-1",
		HeapProfileLgSample, strings.TrimRight(dir, "/")), nil
}

// DumpHeapProfile writes the calling process's sampled live heap, by allocation stack, to path in jemalloc's heap_v2
// text format (mallctl "prof.dump"), followed by the process's mappings. The file is what package heapprof parses.
// It returns an error wrapping ErrHeapProfileUnavailable when the C allocator is not jemalloc (LD_PRELOAD missing) or
// when jemalloc's profiling is off (opt.prof false: MALLOC_CONF lacks prof:true, see HeapProfileMallocConf), and
// mallctl's error number otherwise (EFAULT when jemalloc could not write path).
func DumpHeapProfile(path string) error {
	if processAllocator() != spec.AllocatorJemalloc {
		return fmt.Errorf("%w: the C allocator is %s, not jemalloc (preload libjemalloc.so.2)", ErrHeapProfileUnavailable, processAllocator())
	}
	var on C.bool
	if rc := C.rl_hp_opt_prof(&on); rc != 0 {
		return fmt.Errorf("%w: mallctl opt.prof: %w (jemalloc built without profiling?)", ErrHeapProfileUnavailable, syscall.Errno(rc))
	}
	if !bool(on) {
		return fmt.Errorf("%w: jemalloc heap profiling is off (opt.prof false): start the process with MALLOC_CONF=prof:true", ErrHeapProfileUnavailable)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if rc := C.rl_hp_dump(cpath); rc != 0 {
		return fmt.Errorf("measure: jemalloc prof.dump to %s: %w", path, syscall.Errno(rc))
	}
	return nil
}
