package spec

import "fmt"

// Allocator names the C allocator serving malloc in a model's child process.
// Its string is the word used after "@" in run names, in --allocator and in
// result.json.
type Allocator string

// The allocators a child can run with.
const (
	// AllocatorGlibc is the C library's own malloc, the default.
	AllocatorGlibc Allocator = "glibc"
	// AllocatorJemalloc is jemalloc, preloaded into the child (LD_PRELOAD).
	AllocatorJemalloc Allocator = "jemalloc"
)

// Allocators lists the allocators, the default first.
func Allocators() []Allocator { return []Allocator{AllocatorGlibc, AllocatorJemalloc} }

// ParseAllocator parses "glibc" or "jemalloc". The error names the bad value
// and the known ones.
func ParseAllocator(s string) (Allocator, error) {
	if a, ok := lookup(s, Allocators()); ok {
		return a, nil
	}
	return "", fmt.Errorf("%q is not one of %s", s, joinNames(Allocators()))
}
