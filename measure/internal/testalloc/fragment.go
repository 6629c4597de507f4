package testalloc

/*
#cgo LDFLAGS: -lpthread
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	size_t bytes;      // to allocate
	size_t keep_every; // keep every keep_every-th block (and the last)
	unsigned seed;
	pthread_barrier_t *barrier;
	void **blocks;     // room for the thread's blocks, allocated by the caller
	size_t cap;
	size_t n;          // blocks allocated
	size_t allocated;  // bytes requested
	size_t kept;       // bytes requested of the kept blocks
	int failed;        // a malloc failed, or blocks was too small
} testalloc_frag_thread;

// testalloc_frag_run allocates blocks of 16 to 4,095 bytes (written) until it has requested a->bytes, waits until
// every thread has done so (so that each thread is alive at once and glibc gives each its own arena), then frees
// all but every keep_every-th block and the last one, which pins the top of its heap.
static void *testalloc_frag_run(void *p) {
	testalloc_frag_thread *a = p;
	unsigned x = a->seed;
	while (a->allocated < a->bytes) {
		if (a->n == a->cap) {
			a->failed = 1;
			break;
		}
		x = x * 1103515245u + 12345u;
		size_t sz = 16 + (x >> 8) % 4080;
		void *b = malloc(sz);
		if (b == NULL) {
			a->failed = 1;
			break;
		}
		memset(b, 0x6B, sz);
		a->blocks[a->n++] = b;
		a->allocated += sz;
	}
	pthread_barrier_wait(a->barrier);
	for (size_t i = 0; i < a->n; i++) {
		if (i % a->keep_every == a->keep_every - 1 || i == a->n - 1) {
			continue;
		}
		free(a->blocks[i]);
		a->blocks[i] = NULL;
	}
	return NULL;
}

// testalloc_fragment runs threads testalloc_frag_run threads at once and joins them. It returns 0, or -1 if a thread
// could not start or a malloc failed.
static int testalloc_fragment(testalloc_frag_thread *ts, int threads) {
	pthread_barrier_t barrier;
	pthread_t ids[256];
	int started = 0, rc = 0;
	if (threads > 256 || pthread_barrier_init(&barrier, NULL, (unsigned)threads) != 0) {
		return -1;
	}
	for (int i = 0; i < threads; i++) {
		ts[i].barrier = &barrier;
		if (pthread_create(&ids[i], NULL, testalloc_frag_run, &ts[i]) != 0) {
			// The started threads would wait at the barrier for ever: abort the control.
			abort();
		}
		started++;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(ids[i], NULL);
		if (ts[i].failed) {
			rc = -1;
		}
	}
	pthread_barrier_destroy(&barrier);
	return rc;
}

static void testalloc_frag_kept_bytes(testalloc_frag_thread *a) {
	a->kept = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->blocks[i] != NULL) {
			a->kept += malloc_usable_size(a->blocks[i]);
		}
	}
}

static void testalloc_frag_release(testalloc_frag_thread *a) {
	for (size_t i = 0; i < a->n; i++) {
		free(a->blocks[i]);
		a->blocks[i] = NULL;
	}
	free(a->blocks);
	a->blocks = NULL;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Fragments are the blocks a [Fragment] call kept. The caller releases them with Release.
type Fragments struct {
	ts        []C.testalloc_frag_thread // C memory, freed by Release
	Allocated int64                     // bytes requested by every thread together
	Kept      int64                     // usable bytes of the blocks still allocated
}

// Fragment fragments the C allocator's heap across threads: threads C threads, alive at once (so that glibc gives
// each an arena of its own), each malloc and write blocks of 16 to 4,095 bytes until it has requested bytesPerThread,
// then free all of them but every keepEvery-th and the last, which pins the top of the thread's heap so that free()
// cannot shrink it. What was freed stays resident as the allocator's free memory until it is trimmed or purged.
func Fragment(threads, bytesPerThread, keepEvery int) (*Fragments, error) {
	if threads < 1 || threads > 256 || bytesPerThread < 1 || keepEvery < 1 {
		return nil, fmt.Errorf("testalloc: fragment: bad arguments %d, %d, %d", threads, bytesPerThread, keepEvery)
	}
	ts := unsafe.Slice((*C.testalloc_frag_thread)(C.calloc(C.size_t(threads), C.sizeof_testalloc_frag_thread)), threads)
	maxBlocks := bytesPerThread/512 + 1 // blocks average 2 KiB: four times the room the requests need on average
	for i := range ts {
		ts[i].bytes = C.size_t(bytesPerThread)
		ts[i].keep_every = C.size_t(keepEvery)
		ts[i].seed = C.uint(i + 1)
		ts[i].cap = C.size_t(maxBlocks)
		ts[i].blocks = (*unsafe.Pointer)(C.calloc(C.size_t(maxBlocks), C.size_t(unsafe.Sizeof(unsafe.Pointer(nil)))))
	}
	f := &Fragments{ts: ts}
	if C.testalloc_fragment(&ts[0], C.int(threads)) != 0 {
		f.Release()
		return nil, fmt.Errorf("testalloc: fragment: a malloc failed or a thread ran out of room for its blocks")
	}
	for i := range ts {
		C.testalloc_frag_kept_bytes(&ts[i])
		f.Allocated += int64(ts[i].allocated)
		f.Kept += int64(ts[i].kept)
	}
	return f, nil
}

// Release frees the kept blocks. It is safe to call more than once.
func (f *Fragments) Release() {
	if f.ts == nil {
		return
	}
	for i := range f.ts {
		C.testalloc_frag_release(&f.ts[i])
	}
	C.free(unsafe.Pointer(&f.ts[0]))
	f.ts = nil
}
