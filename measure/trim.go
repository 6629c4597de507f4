package measure

/*
#include <malloc.h>
*/
import "C"

// TrimNativeHeap consolidates glibc malloc's free chunks and returns free memory to the system (malloc_trim(0)), so
// that a benchmark does not inherit the free chunks an earlier benchmark left: glibc's mallinfo2, which every sample
// calls, walks every free chunk, and its cost follows the heap's history. It changes the heap being measured, so
// rocksleak's runs never call it. Under jemalloc it trims only glibc's own (unused) heap.
func TrimNativeHeap() { C.malloc_trim(0) }
