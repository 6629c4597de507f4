package heapprof

import (
	"debug/elf"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/ianlancetaylor/demangle"
)

// Frame is one symbolized address.
type Frame struct {
	// Function is the demangled name without parameter lists (e.g. "rocksdb::NewLRUCache"; cgo's wrapper of C
	// function f is "C.f"), or "" when the address fell in no function symbol of its file (or in an anonymous
	// mapping).
	Function string
	// SystemName is the symbol as the ELF file spells it (mangled for C++).
	SystemName string
	// File is the path of the mapped file holding the address, "" for an anonymous mapping.
	File string
}

// Symbolizer resolves runtime addresses of one process to functions through the mappings of its dump and the ELF
// symbol tables (.symtab, then .dynsym) of the mapped files. It caches each file's table; it is safe for concurrent
// use. Files are read from the paths of the mappings, so symbolize on the machine (and with the binaries) the
// process ran with, before a temporary binary is removed.
//
// A binary linked without its symbol table (go build -ldflags=-s, and every binary go test builds) symbolizes only
// its exported dynamic symbols; Go's linker keeps no local symbols of cgo's C objects, so a static C function never
// symbolizes (its address falls outside every sized symbol and is reported unsymbolized, not misattributed).
type Symbolizer struct {
	mu    sync.Mutex
	files map[string]*symFile
}

// NewSymbolizer returns an empty Symbolizer.
func NewSymbolizer() *Symbolizer { return &Symbolizer{files: map[string]*symFile{}} }

type symbol struct {
	value, size uint64
	name        string
}

type symFile struct {
	loads []elf.ProgHeader // PT_LOAD segments
	syms  []symbol         // function symbols sorted by value
	err   error
}

// Lookup symbolizes addr, a runtime address of the process whose mappings are ms. The error says why a file could
// not be read; an address in no function (or in an anonymous mapping) is not an error: its Frame has no Function.
func (s *Symbolizer) Lookup(ms []Mapping, addr uint64) (Frame, error) {
	m := findMapping(ms, addr)
	if m == nil {
		return Frame{}, nil
	}
	if m.Path == "" || strings.HasPrefix(m.Path, "[") {
		return Frame{}, nil
	}
	f := s.file(m.Path)
	fr := Frame{File: m.Path}
	if f.err != nil {
		return fr, f.err
	}
	off := addr - m.Start + m.Offset
	vaddr, ok := f.vaddr(off)
	if !ok {
		return fr, nil
	}
	if sym, ok := f.lookup(vaddr); ok {
		fr.SystemName = sym
		fr.Function = functionName(sym)
	}
	return fr, nil
}

// cgoWrapper matches the C wrapper cgo generates for each C function a Go package calls; its hash changes with the
// build.
var cgoWrapper = regexp.MustCompile(`^_cgo_[0-9a-f]+_Cfunc_(.+)$`)

// functionName is the displayed name of symbol sym: C++ names demangled without parameter lists, and cgo's wrapper of
// C function f named "C.f" (stable across builds; a static f is usually inlined into its wrapper).
func functionName(sym string) string {
	if m := cgoWrapper.FindStringSubmatch(sym); m != nil {
		return "C." + m[1]
	}
	return demangle.Filter(sym, demangle.NoParams)
}

func findMapping(ms []Mapping, addr uint64) *Mapping {
	for i := range ms {
		if ms[i].Start <= addr && addr < ms[i].Limit {
			return &ms[i]
		}
	}
	return nil
}

func (s *Symbolizer) file(path string) *symFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[path]; ok {
		return f
	}
	f := loadSymFile(path)
	s.files[path] = f
	return f
}

func loadSymFile(path string) *symFile {
	ef, err := elf.Open(path)
	if err != nil {
		return &symFile{err: fmt.Errorf("heapprof: symbols of %s: %w", path, err)}
	}
	defer ef.Close()
	f := &symFile{}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			f.loads = append(f.loads, p.ProgHeader)
		}
	}
	seen := map[uint64]bool{}
	add := func(syms []elf.Symbol) {
		for _, sy := range syms {
			if elf.ST_TYPE(sy.Info) != elf.STT_FUNC && elf.ST_TYPE(sy.Info) != elf.STT_GNU_IFUNC {
				continue
			}
			if sy.Value == 0 || sy.Name == "" || seen[sy.Value] {
				continue
			}
			seen[sy.Value] = true
			f.syms = append(f.syms, symbol{value: sy.Value, size: sy.Size, name: sy.Name})
		}
	}
	// .symtab first: it has the local (static) functions; .dynsym fills in what a stripped file still exports.
	if syms, err := ef.Symbols(); err == nil {
		add(syms)
	}
	if syms, err := ef.DynamicSymbols(); err == nil {
		add(syms)
	}
	sort.Slice(f.syms, func(i, j int) bool { return f.syms[i].value < f.syms[j].value })
	return f
}

// vaddr translates a file offset to the ELF virtual address the linker gave it.
func (f *symFile) vaddr(off uint64) (uint64, bool) {
	for _, p := range f.loads {
		if p.Off <= off && off < p.Off+p.Filesz {
			return off - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

func (f *symFile) lookup(v uint64) (string, bool) {
	i := sort.Search(len(f.syms), func(i int) bool { return f.syms[i].value > v }) - 1
	if i < 0 {
		return "", false
	}
	sy := f.syms[i]
	if sy.size != 0 && v >= sy.value+sy.size {
		return "", false
	}
	return sy.name, true
}
