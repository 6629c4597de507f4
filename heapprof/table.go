package heapprof

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/rocksleak/rocksleak/schema"
)

// allocatorFunctions are the C allocator's entry points; a frame in one of them is the allocator, not its caller.
var allocatorFunctions = map[string]bool{
	"malloc": true, "calloc": true, "realloc": true, "reallocarray": true, "free": true,
	"posix_memalign": true, "aligned_alloc": true, "memalign": true, "valloc": true, "pvalloc": true,
	"malloc_usable_size": true, "mallocx": true, "rallocx": true, "xallocx": true, "sdallocx": true,
	"__libc_malloc": true, "__libc_calloc": true, "__libc_realloc": true, "__libc_memalign": true,
	"strdup": true, "strndup": true,
}

// AllocatingFrame returns the frame a stack's growth is attributed to: the innermost location that is not the
// allocator. A location is the allocator when its file is libjemalloc (all of jemalloc's own frames, including its
// profiling backtrace), when its function is a C allocation entry point (malloc, calloc, realloc, posix_memalign,
// aligned_alloc, memalign, valloc, strdup, …, in any file), or when its function is a C++ global operator new or
// new[] (libstdc++'s, any overload). The name is the location's function, "0x<addr> (<file>)" for an unsymbolized
// address, or "(allocator only)" when every frame is the allocator.
func AllocatingFrame(s *profile.Sample) string {
	for _, l := range s.Location {
		if isAllocator(l) {
			continue
		}
		if len(l.Line) > 0 && l.Line[0].Function != nil {
			return l.Line[0].Function.Name
		}
		return fmt.Sprintf("%#x (%s)", l.Address, mappingBase(l.Mapping))
	}
	return "(allocator only)"
}

// IsAllocatorFunction reports whether a function name is the C allocator's (AllocatingFrame's rule without the
// file): a C allocation entry point, or a C++ global operator new or new[].
func IsAllocatorFunction(name string) bool {
	return allocatorFunctions[name] || name == "operator new" || name == "operator new[]"
}

func isAllocator(l *profile.Location) bool {
	if l.Mapping != nil && strings.Contains(mappingBase(l.Mapping), "libjemalloc") {
		return true
	}
	if len(l.Line) == 0 || l.Line[0].Function == nil {
		return false
	}
	return IsAllocatorFunction(l.Line[0].Function.Name)
}

// Attribute returns the table of p's growth (its inuse_space sample type) by allocating function (AllocatingFrame),
// over lifecycles lifecycles (> 0). Share is of the total growth, negative rows included.
func Attribute(p *profile.Profile, lifecycles int64) (schema.ProfileTable, error) {
	if lifecycles <= 0 {
		return schema.ProfileTable{}, fmt.Errorf("heapprof: lifecycles %d: must be > 0", lifecycles)
	}
	by, err := bytesByFunction(p)
	if err != nil {
		return schema.ProfileTable{}, err
	}
	t := schema.ProfileTable{Lifecycles: lifecycles}
	var total int64
	for fn, b := range by {
		t.Rows = append(t.Rows, schema.ProfileRow{Function: fn, Bytes: float64(b), BytesPerLifecycle: float64(b) / float64(lifecycles)})
		total += b
	}
	t.TotalBytes = float64(total) // whole bytes, exact (an int64 sum)
	t.TotalPerLifecycle = float64(total) / float64(lifecycles)
	t.Finish()
	return t, nil
}

// AttributeDiff returns the table of a's growth minus b's, per lifecycle: for each function, a's bytes per lifecycle
// (over la lifecycles) minus b's (over lb). It names what a grows by that b does not (leaky minus fixed names the
// leak). Bytes is that per-lifecycle difference times la (b's growth scaled to a's lifecycles); Lifecycles is la;
// Share is of the difference's total per lifecycle.
func AttributeDiff(a *profile.Profile, la int64, b *profile.Profile, lb int64) (schema.ProfileTable, error) {
	ta, err := Attribute(a, la)
	if err != nil {
		return schema.ProfileTable{}, err
	}
	tb, err := Attribute(b, lb)
	if err != nil {
		return schema.ProfileTable{}, err
	}
	per := map[string]float64{}
	for _, r := range ta.Rows {
		per[r.Function] += r.BytesPerLifecycle
	}
	for _, r := range tb.Rows {
		per[r.Function] -= r.BytesPerLifecycle
	}
	t := schema.ProfileTable{Lifecycles: la}
	for fn, v := range per {
		// Whole bytes (truncated toward zero), as the profile's own figures are.
		t.Rows = append(t.Rows, schema.ProfileRow{Function: fn, Bytes: float64(int64(v * float64(la))), BytesPerLifecycle: v})
		t.TotalPerLifecycle += v
	}
	t.TotalBytes = float64(int64(t.TotalPerLifecycle * float64(la)))
	t.Finish()
	return t, nil
}

// inuseIndex returns the index of p's inuse_space sample type.
func inuseIndex(p *profile.Profile) (int, error) {
	for i, st := range p.SampleType {
		if st.Type == SampleInuseSpace && st.Unit == "bytes" {
			return i, nil
		}
	}
	return -1, errors.New("heapprof: profile has no inuse_space/bytes sample type")
}

func bytesByFunction(p *profile.Profile) (map[string]int64, error) {
	idx, err := inuseIndex(p)
	if err != nil {
		return nil, err
	}
	by := map[string]int64{}
	for _, s := range p.Sample {
		if v := s.Value[idx]; v != 0 {
			by[AllocatingFrame(s)] += v
		}
	}
	return by, nil
}

// GrowthThrough returns the growth (inuse_space, bytes) of the samples of p whose stack has a frame for which match
// returns true, each sample counted once however many of its frames match: the cumulative ("cum") figure of pprof,
// for questions like "how much of the growth was allocated under the options' construction".
func GrowthThrough(p *profile.Profile, match func(function string) bool) (int64, error) {
	idx, err := inuseIndex(p)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, s := range p.Sample {
	frames:
		for _, l := range s.Location {
			for _, ln := range l.Line {
				if ln.Function != nil && match(ln.Function.Name) {
					total += s.Value[idx]
					break frames
				}
			}
		}
	}
	return total, nil
}
