package spec

import (
	"fmt"
	"slices"
	"strings"
)

// SyntheticSuffix marks a run of a model with the scenario's synthetic leak
// added ("fixed+synthetic"), for calibration against its control (the same
// model without the suffix).
const SyntheticSuffix = "+synthetic"

// RunName is one entry of a scenario's models list, parsed: an ownership
// model, optionally with the scenario's synthetic leak ("fixed+synthetic"),
// optionally under a named allocator ("leaky@jemalloc"; glibc when absent).
// Each entry is one child process and one set of results.
type RunName struct {
	Model     string // one of the known models given to ParseRunName
	Synthetic bool
	Allocator Allocator
}

// String renders n as ParseRunName reads it: the allocator is written only
// when it is not glibc.
func (n RunName) String() string {
	s := n.Model
	if n.Synthetic {
		s += SyntheticSuffix
	}
	if n.Allocator != "" && n.Allocator != AllocatorGlibc {
		s += "@" + string(n.Allocator)
	}
	return s
}

// ParseRunName parses "<model>[+synthetic][@glibc|@jemalloc]", where model is
// one of models. The error names the bad value and the known ones.
func ParseRunName(name string, models []string) (RunName, error) {
	rn := RunName{Allocator: AllocatorGlibc}
	rest := name
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		a, err := ParseAllocator(rest[i+1:])
		if err != nil {
			return rn, fmt.Errorf("%q: allocator %w", name, err)
		}
		rn.Allocator, rest = a, rest[:i]
	}
	rest, rn.Synthetic = strings.CutSuffix(rest, SyntheticSuffix)
	if !slices.Contains(models, rest) {
		return rn, fmt.Errorf("%q is not a model (known: %s, each optionally with %q and @%s or @%s)",
			name, strings.Join(models, ", "), SyntheticSuffix, AllocatorGlibc, AllocatorJemalloc)
	}
	rn.Model = rest
	return rn, nil
}
