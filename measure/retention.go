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

typedef int (*rl_ret_mallctl_fn)(const char *, void *, size_t *, void *, size_t);

typedef struct {
	size_t in_use;   // glibc: uordblks + hblkhd; jemalloc: stats.allocated
	size_t free;     // glibc: fordblks; jemalloc: stats.resident - stats.allocated (0 if negative)
	size_t keepcost; // glibc only
	size_t resident; // jemalloc only
	size_t retained; // jemalloc only
	int rc;          // mallctl's error number, 0 on success
	const char *what; // the mallctl name that failed
} rl_alloc_figures;

static rl_ret_mallctl_fn rl_ret_mallctl(void) {
	return (rl_ret_mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
}

static rl_alloc_figures rl_glibc_figures(void) {
	rl_alloc_figures f = {0};
	struct mallinfo2 mi = mallinfo2();
	f.in_use = mi.uordblks + mi.hblkhd;
	f.free = mi.fordblks;
	f.keepcost = mi.keepcost;
	return f;
}

static int rl_read_size(rl_ret_mallctl_fn m, const char *name, size_t *v) {
	size_t sz = sizeof(*v);
	return m(name, v, &sz, NULL, 0);
}

// rl_jemalloc_figures refreshes jemalloc's statistics ("epoch") and reads stats.allocated, stats.resident and
// stats.retained.
static rl_alloc_figures rl_jemalloc_figures(void) {
	rl_alloc_figures f = {0};
	rl_ret_mallctl_fn m = rl_ret_mallctl();
	if (m == NULL) {
		f.rc = -1;
		f.what = "mallctl";
		return f;
	}
	uint64_t epoch = 1;
	size_t sz = sizeof(epoch);
	if ((f.rc = m("epoch", &epoch, &sz, &epoch, sz)) != 0) {
		f.what = "epoch";
		return f;
	}
	if ((f.rc = rl_read_size(m, "stats.allocated", &f.in_use)) != 0) {
		f.what = "stats.allocated";
		return f;
	}
	if ((f.rc = rl_read_size(m, "stats.resident", &f.resident)) != 0) {
		f.what = "stats.resident";
		return f;
	}
	if ((f.rc = rl_read_size(m, "stats.retained", &f.retained)) != 0) {
		f.what = "stats.retained";
		return f;
	}
	f.free = f.resident > f.in_use ? f.resident - f.in_use : 0;
	return f;
}

// rl_jemalloc_purge purges the dirty and muzzy pages of every arena (MALLCTL_ARENAS_ALL is 4096 in jemalloc 5).
static int rl_jemalloc_purge(void) {
	rl_ret_mallctl_fn m = rl_ret_mallctl();
	if (m == NULL) {
		return -1;
	}
	return m("arena.4096.purge", NULL, NULL, NULL, 0);
}
*/
import "C"

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// Retention is the result of [Sampler.ProbeRetention]; the type is [schema.Retention].
type Retention = schema.Retention

// The probe's actions, as [Retention.Action] names them.
const (
	ActionTrim  = "malloc_trim(0)"
	ActionPurge = "arena.4096.purge"
)

// allocFigures are the allocator's figures at one moment, in bytes.
type allocFigures struct {
	inUse, free, keepcost, resident, retained int64
}

func readAllocFigures(a Allocator) (allocFigures, error) {
	var f C.rl_alloc_figures
	if a == spec.AllocatorJemalloc {
		f = C.rl_jemalloc_figures()
		if f.rc != 0 {
			return allocFigures{}, fmt.Errorf("measure: jemalloc mallctl %s: %w", C.GoString(f.what), syscall.Errno(f.rc))
		}
	} else {
		f = C.rl_glibc_figures()
	}
	return allocFigures{inUse: int64(f.in_use), free: int64(f.free), keepcost: int64(f.keepcost),
		resident: int64(f.resident), retained: int64(f.retained)}, nil
}

// releaseFreeMemory asks allocator a to give its free pages back to the system: glibc's malloc_trim(0) (every
// arena's free chunks, their whole pages madvised away, and the top chunks shrunk), or jemalloc's purge of every
// arena's dirty and muzzy pages. It returns the action's name.
func releaseFreeMemory(a Allocator) (string, error) {
	if a == spec.AllocatorJemalloc {
		if rc := C.rl_jemalloc_purge(); rc != 0 {
			return ActionPurge, fmt.Errorf("measure: jemalloc mallctl %s: %w", ActionPurge, syscall.Errno(rc))
		}
		return ActionPurge, nil
	}
	C.malloc_trim(0)
	return ActionTrim, nil
}

// ProbeRetention measures how much of the calling process's RSS is free memory its C allocator holds: it reads RSS
// and the allocator's figures, makes the allocator release its free pages (see [Retention.Action]), and reads them
// again. It changes the heap (the pages released must be faulted in again when reused, and glibc's free lists are
// consolidated), so a run takes it once, after its last sample, never between two samples of a series. Only the
// sampler of the calling process (the default) can probe; others get an error. Jemalloc's per-thread caches are
// not flushed: what they hold counts as in use.
func (s *Sampler) ProbeRetention() (Retention, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Retention{Allocator: s.alloc}
	if s.closed {
		return r, fmt.Errorf("measure: probe retention: %w", os.ErrClosed)
	}
	if !s.self {
		return r, fmt.Errorf("measure: probe retention: pid %d is not the calling process", s.pid)
	}
	_, rss, err := s.statm.read()
	if err != nil {
		return r, err
	}
	before, err := readAllocFigures(s.alloc)
	if err != nil {
		return r, err
	}
	start := time.Now()
	r.Action, err = releaseFreeMemory(s.alloc)
	r.DurationNs = int64(time.Since(start))
	if err != nil {
		return r, err
	}
	after, err := readAllocFigures(s.alloc)
	if err != nil {
		return r, err
	}
	_, rssAfter, err := s.statm.read()
	if err != nil {
		return r, err
	}
	r.RSSBefore, r.RSSAfter = rss*s.page, rssAfter*s.page
	r.Released = r.RSSBefore - r.RSSAfter
	r.NativeHeapBefore, r.NativeHeapAfter = before.inUse, after.inUse
	r.AllocatorFreeBefore, r.AllocatorFreeAfter = before.free, after.free
	r.TopReleasableBefore = before.keepcost
	r.ResidentBefore, r.ResidentAfter = before.resident, after.resident
	r.RetainedBefore, r.RetainedAfter = before.retained, after.retained
	return r, nil
}
