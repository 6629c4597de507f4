package measure

/*
#cgo LDFLAGS: -ldl
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*rl_mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static rl_mallctl_fn rl_mallctl;

// rl_detect_jemalloc looks mallctl up in the global scope (set once, before any reader runs).
static int rl_detect_jemalloc(void) {
	rl_mallctl = (rl_mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	return rl_mallctl != NULL;
}

// rl_glibc_in_use returns the bytes glibc malloc has handed out: arena chunks in use plus mmapped chunks.
static size_t rl_glibc_in_use(void) {
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

typedef struct {
	size_t allocated;
	int rc; // mallctl's error number, 0 on success
} rl_jemalloc_result;

// rl_jemalloc_allocated refreshes jemalloc's statistics and reads stats.allocated. It returns by value so that the
// Go caller passes no pointer (which would make its result escape to the heap).
static rl_jemalloc_result rl_jemalloc_allocated(void) {
	rl_jemalloc_result r = {0, 0};
	uint64_t epoch = 1;
	size_t sz = sizeof(epoch);
	r.rc = rl_mallctl("epoch", &epoch, &sz, &epoch, sz);
	if (r.rc != 0) {
		return r;
	}
	sz = sizeof(r.allocated);
	r.rc = rl_mallctl("stats.allocated", &r.allocated, &sz, NULL, 0);
	return r;
}
*/
import "C"

import (
	"fmt"
	"sync"
	"syscall"

	"github.com/rocksleak/rocksleak/spec"
)

var (
	detectOnce    sync.Once
	detectedAlloc Allocator
)

// processAllocator reports the C allocator of the calling process. Detection runs once: the allocator cannot change
// after the process has started.
func processAllocator() Allocator {
	detectOnce.Do(func() {
		if C.rl_detect_jemalloc() != 0 {
			detectedAlloc = spec.AllocatorJemalloc
		} else {
			detectedAlloc = spec.AllocatorGlibc
		}
	})
	return detectedAlloc
}

// nativeHeapInUse returns the bytes in use by the calling process's C allocator a.
func nativeHeapInUse(a Allocator) (int64, error) {
	if a == spec.AllocatorJemalloc {
		r := C.rl_jemalloc_allocated()
		if r.rc != 0 {
			return 0, fmt.Errorf("measure: jemalloc mallctl stats.allocated: %w", syscall.Errno(r.rc))
		}
		return int64(r.allocated), nil
	}
	return int64(C.rl_glibc_in_use()), nil
}
