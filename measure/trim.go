package measure

/*
#include <malloc.h>
*/
import "C"

import "github.com/rocksleak/rocksleak/spec"

// TrimNativeHeap consolidates glibc malloc's free chunks and returns free memory to the system (malloc_trim(0)), so
// that a benchmark does not inherit the free chunks an earlier benchmark left: glibc's mallinfo2, which every sample
// calls, walks every free chunk, and its cost follows the heap's history. It changes the heap being measured, so
// rocksleak's runs never call it. Under jemalloc it trims only glibc's own (unused) heap.
func TrimNativeHeap() { C.malloc_trim(0) }

// NativeHeapFreeChunks is the number of free chunks in glibc malloc's bins over every arena (mallinfo2's ordblks
// plus smblks, the top chunks included): the chunks a native-heap read walks, so what its cost follows. It costs one
// such walk. Under jemalloc it is -1 (jemalloc's read walks none). For benchmarks, to show the heap a count ran on.
func NativeHeapFreeChunks() int64 {
	if processAllocator() != spec.AllocatorGlibc {
		return -1
	}
	mi := C.mallinfo2()
	return int64(mi.ordblks) + int64(mi.smblks)
}
