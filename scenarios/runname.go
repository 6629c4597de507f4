package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// Allocators a model's child process can run with.
const (
	AllocatorGlibc    = "glibc"
	AllocatorJemalloc = "jemalloc"
)

// RunName is one entry of a scenario's models list, parsed: an ownership
// model, optionally with the scenario's synthetic leak ("fixed+synthetic"),
// optionally under a named allocator ("leaky@jemalloc"; glibc when absent).
// Each entry is one child process and one set of results.
type RunName struct {
	Model     string // one of ModelNames()
	Synthetic bool
	Allocator string // AllocatorGlibc or AllocatorJemalloc
}

// ParseRunName parses "<model>[+synthetic][@glibc|@jemalloc]".
func ParseRunName(name string) (RunName, error) {
	rn := RunName{Allocator: AllocatorGlibc}
	rest := name
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rn.Allocator = rest[i+1:]
		rest = rest[:i]
		if rn.Allocator != AllocatorGlibc && rn.Allocator != AllocatorJemalloc {
			return rn, fmt.Errorf("%q: allocator %q is not one of %s, %s", name, rn.Allocator, AllocatorGlibc, AllocatorJemalloc)
		}
	}
	rest, rn.Synthetic = strings.CutSuffix(rest, SyntheticSuffix)
	if !slices.Contains(ModelNames(), rest) {
		return rn, fmt.Errorf("%q is not a model (known: %s, each optionally with %q and @%s or @%s)",
			name, strings.Join(ModelNames(), ", "), SyntheticSuffix, AllocatorGlibc, AllocatorJemalloc)
	}
	rn.Model = rest
	return rn, nil
}
