package heapprof

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// Sample types of a growth profile, in the order of profile.Profile.SampleType (Go's heap profile names, so that
// pprof's -sample_index, -inuse_space and -alloc_space work). Growth sets inuse_space as the default.
const (
	SampleAllocObjects = "alloc_objects"
	SampleAllocSpace   = "alloc_space"
	SampleInuseObjects = "inuse_objects"
	SampleInuseSpace   = "inuse_space"
)

// Growth returns the growth from earlier to later, two dumps of one process, by allocation stack: for each stack, the
// unsampled counts of later minus those of earlier. inuse_space is the growth of the live heap between the dumps
// (negative where the stack's live bytes shrank); alloc_space is what the stack allocated between them, freed or not
// (zero unless jemalloc ran with prof_accum:true).
//
// The stacks are symbolized with sym against later's mappings; non-innermost addresses are return addresses and are
// moved back by one byte onto their call instruction first (as jeprof and pprof do). The innermost frames that are
// the allocator itself (the rule of AllocatingFrame: jemalloc, malloc and friends, operator new) are dropped, so that
// a sample's first location is its allocating function and pprof's flat column agrees with Attribute. The profile's
// mappings are the file-backed executable mappings of later in their /proc order, so the first is the main binary. Every Location carries its
// Function (Mapping.HasFunctions is set), so pprof does not look for the binaries again. The error reports dumps of
// different sampling intervals or of different processes (mappings differ); a file whose symbols cannot be read leaves
// its addresses unsymbolized and is listed in the profile's comments.
func Growth(earlier, later *Dump, sym *Symbolizer) (*profile.Profile, error) {
	if earlier.SamplePeriod != later.SamplePeriod {
		return nil, fmt.Errorf("heapprof: sampling intervals differ: %d and %d bytes", earlier.SamplePeriod, later.SamplePeriod)
	}
	if !sameExecutableMappings(earlier.Mappings, later.Mappings) {
		return nil, errors.New("heapprof: the dumps' mappings differ: they are not of one process")
	}
	type acc struct {
		stack []uint64
		v     [4]float64
	}
	byStack := map[string]*acc{}
	var order []string
	add := func(d *Dump, sign float64) {
		for _, r := range d.Records {
			k := stackKey(r.Stack)
			a, ok := byStack[k]
			if !ok {
				a = &acc{stack: r.Stack}
				byStack[k] = a
				order = append(order, k)
			}
			io, ib, ao, ab := d.Estimate(r.Counts)
			a.v[0] += sign * ao
			a.v[1] += sign * ab
			a.v[2] += sign * io
			a.v[3] += sign * ib
		}
	}
	add(later, 1)
	add(earlier, -1)

	b := newBuilder(later, sym)
	p := b.p
	for _, k := range order {
		a := byStack[k]
		var v [4]int64
		zero := true
		for i := range v {
			v[i] = int64(math.Round(a.v[i]))
			zero = zero && v[i] == 0
		}
		if zero {
			continue
		}
		s := &profile.Sample{Value: v[:]}
		for i, addr := range a.stack {
			if i > 0 {
				addr--
			}
			s.Location = append(s.Location, b.location(addr))
		}
		// Drop the allocator's own frames, so that pprof's flat column names the allocating function.
		for len(s.Location) > 1 && isAllocator(s.Location[0]) {
			s.Location = s.Location[1:]
		}
		p.Sample = append(p.Sample, s)
	}
	for path, err := range b.errs {
		p.Comments = append(p.Comments, fmt.Sprintf("unsymbolized %s: %v", path, err))
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("heapprof: building the growth profile: %w", err)
	}
	return p, nil
}

func stackKey(stack []uint64) string {
	var sb strings.Builder
	for _, a := range stack {
		sb.WriteString(strconv.FormatUint(a, 16))
		sb.WriteByte(' ')
	}
	return sb.String()
}

// sameExecutableMappings reports whether the file-backed executable mappings of a and b agree; anonymous and data
// mappings come and go while a process runs.
func sameExecutableMappings(a, b []Mapping) bool {
	exec := func(ms []Mapping) map[Mapping]bool {
		out := map[Mapping]bool{}
		for _, m := range ms {
			if strings.Contains(m.Perms, "x") && strings.HasPrefix(m.Path, "/") {
				out[m] = true
			}
		}
		return out
	}
	ea, eb := exec(a), exec(b)
	// Libraries loaded between the dumps are allowed (dlopen); a library moved or gone is not.
	for m := range ea {
		if !eb[m] {
			return false
		}
	}
	return true
}

type builder struct {
	p         *profile.Profile
	d         *Dump
	sym       *Symbolizer
	locs      map[uint64]*profile.Location
	funcs     map[[2]string]*profile.Function
	mappings  map[*Mapping]*profile.Mapping
	errs      map[string]error
	nextLocID uint64
}

func newBuilder(d *Dump, sym *Symbolizer) *builder {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: SampleAllocObjects, Unit: "count"},
			{Type: SampleAllocSpace, Unit: "bytes"},
			{Type: SampleInuseObjects, Unit: "count"},
			{Type: SampleInuseSpace, Unit: "bytes"},
		},
		DefaultSampleType: SampleInuseSpace,
		PeriodType:        &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:            d.SamplePeriod,
		Comments: []string{
			"growth between two jemalloc heap_v2 dumps of one process (later minus earlier), unsampled as jeprof does",
			fmt.Sprintf("sampling interval %d bytes", d.SamplePeriod),
		},
	}
	b := &builder{
		p: p, d: d, sym: sym,
		locs:     map[uint64]*profile.Location{},
		funcs:    map[[2]string]*profile.Function{},
		mappings: map[*Mapping]*profile.Mapping{},
		errs:     map[string]error{},
	}
	for i := range d.Mappings {
		if m := &d.Mappings[i]; strings.Contains(m.Perms, "x") && strings.HasPrefix(m.Path, "/") {
			b.mapping(m)
		}
	}
	return b
}

func (b *builder) location(addr uint64) *profile.Location {
	if l, ok := b.locs[addr]; ok {
		return l
	}
	b.nextLocID++
	l := &profile.Location{ID: b.nextLocID, Address: addr}
	if m := findMapping(b.d.Mappings, addr); m != nil {
		l.Mapping = b.mapping(m)
	}
	fr, err := b.sym.Lookup(b.d.Mappings, addr)
	if err != nil {
		b.errs[fr.File] = err
	}
	if fr.Function != "" {
		key := [2]string{fr.SystemName, fr.File}
		fn, ok := b.funcs[key]
		if !ok {
			fn = &profile.Function{ID: uint64(len(b.funcs) + 1), Name: fr.Function, SystemName: fr.SystemName, Filename: fr.File}
			b.funcs[key] = fn
			b.p.Function = append(b.p.Function, fn)
		}
		l.Line = []profile.Line{{Function: fn}}
	}
	b.locs[addr] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

func (b *builder) mapping(m *Mapping) *profile.Mapping {
	if pm, ok := b.mappings[m]; ok {
		return pm
	}
	pm := &profile.Mapping{
		ID: uint64(len(b.mappings) + 1), Start: m.Start, Limit: m.Limit, Offset: m.Offset, File: m.Path,
		HasFunctions: true,
	}
	if m.Path == "" {
		pm.File = "[anon]"
	}
	b.mappings[m] = pm
	b.p.Mapping = append(b.p.Mapping, pm)
	return pm
}

// mappingBase is the file name of a mapping's path, for display.
func mappingBase(m *profile.Mapping) string {
	if m == nil {
		return ""
	}
	return filepath.Base(m.File)
}
