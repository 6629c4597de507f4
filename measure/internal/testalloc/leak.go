package testalloc

/*
#include <stdlib.h>
#include <string.h>

// testalloc_synthetic_leak mallocs n bytes, writes them and returns them; the Go caller drops the pointer, so the
// bytes stay allocated for the life of the process. It is the known allocation site of heapprof's end-to-end test:
// noinline keeps it a frame of its own in every stack, and it is not static because Go's linker keeps no local
// symbols of C objects (a static function would not symbolize).
__attribute__((noinline)) void *testalloc_synthetic_leak(size_t n) {
	void *p = malloc(n);
	if (p != NULL) {
		memset(p, 0x5A, n);
	}
	return p;
}

// testalloc_churn mallocs n bytes, writes them and frees them: allocation traffic without growth.
__attribute__((noinline)) int testalloc_churn(size_t n) {
	volatile char *p = malloc(n);
	if (p == NULL) {
		return -1;
	}
	memset((char *)p, 0x3C, n);
	free((char *)p);
	return 0;
}
*/
import "C"

// SyntheticLeakFunction is the name of the C function that allocates the bytes Leak leaks, as it appears in the
// binary's symbol table.
const SyntheticLeakFunction = "testalloc_synthetic_leak"

// Leak allocates n bytes with the C allocator from SyntheticLeakFunction, writes them and never frees them. It
// panics if malloc fails.
func Leak(n int) {
	if C.testalloc_synthetic_leak(C.size_t(n)) == nil {
		panic("testalloc: malloc failed")
	}
}

// Churn allocates n bytes with the C allocator, writes them and frees them. It panics if malloc fails.
func Churn(n int) {
	if C.testalloc_churn(C.size_t(n)) != 0 {
		panic("testalloc: malloc failed")
	}
}
