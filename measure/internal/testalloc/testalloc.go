// Package testalloc makes C allocations for the positive controls of package measure's tests. cgo cannot be used in
// _test.go files, so the helpers live here.
package testalloc

/*
#include <stdlib.h>
#include <string.h>

static void *testalloc_malloc(size_t n) {
	void *p = malloc(n);
	if (p != NULL) {
		memset(p, 0xA5, n);
	}
	return p;
}
*/
import "C"

import "unsafe"

// Malloc allocates n bytes with the C allocator and writes every byte, so that the pages are resident. The caller
// owns the memory and must release it with Free. It panics if malloc fails.
func Malloc(n int) unsafe.Pointer {
	p := C.testalloc_malloc(C.size_t(n))
	if p == nil {
		panic("testalloc: malloc failed")
	}
	return p
}

// Free releases memory returned by Malloc.
func Free(p unsafe.Pointer) { C.free(p) }
