package heapprof

import (
	"debug/elf"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadedAt returns the mapping of the executable PT_LOAD segment of the shared library at path as the dynamic loader
// would map it at base, and the runtime address of symbol name plus delta.
func loadedAt(t *testing.T, path, name string, base, delta uint64) ([]Mapping, uint64) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not installed: %v", path, err)
	}
	f, err := elf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	syms, err := f.DynamicSymbols()
	require.NoError(t, err)
	var value uint64
	for _, s := range syms {
		if s.Name == name {
			value = s.Value
		}
	}
	require.NotZero(t, value, "%s has no %s", path, name)
	const page = 0x1000
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			start := base + p.Vaddr&^(page-1)
			m := Mapping{Start: start, Limit: base + p.Vaddr + p.Memsz, Offset: p.Off &^ (page - 1), Perms: "r-xp", Path: path}
			return []Mapping{{Start: base - page, Limit: base, Perms: "rw-p"}, m}, base + value + delta
		}
	}
	t.Fatalf("%s has no executable segment", path)
	return nil, 0
}

func TestSymbolizerSharedLibraries(t *testing.T) {
	for _, tc := range []struct {
		name, path, symbol, want string
	}{
		{"C, .dynsym of a stripped library", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "mallctl", "mallctl"},
		{"C++, demangled without parameters", "/usr/lib/x86_64-linux-gnu/librocksdb.so.7.8",
			"_ZN7rocksdb11NewLRUCacheERKNS_15LRUCacheOptionsE", "rocksdb::NewLRUCache"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, addr := loadedAt(t, tc.path, tc.symbol, 0x7f0000000000, 5)
			fr, err := NewSymbolizer().Lookup(ms, addr)
			require.NoError(t, err)
			assert.Equal(t, Frame{Function: tc.want, SystemName: tc.symbol, File: tc.path}, fr)
		})
	}
}

func TestSymbolizerNoFunction(t *testing.T) {
	ms, addr := loadedAt(t, "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "mallctl", 0x7f0000000000, 0)
	s := NewSymbolizer()

	fr, err := s.Lookup(ms, 0x1000) // in no mapping
	require.NoError(t, err)
	assert.Equal(t, Frame{}, fr)

	fr, err = s.Lookup(ms, ms[0].Start) // anonymous mapping
	require.NoError(t, err)
	assert.Equal(t, Frame{}, fr)

	ms[1].Path = "/nonexistent/lib.so"
	fr, err = s.Lookup(ms, addr)
	assert.Error(t, err)
	assert.Equal(t, Frame{File: "/nonexistent/lib.so"}, fr)
}

func TestFunctionName(t *testing.T) {
	for sym, want := range map[string]string{
		"malloc": "malloc",
		"_ZN7rocksdb11NewLRUCacheERKNS_15LRUCacheOptionsE": "rocksdb::NewLRUCache",
		"_Znwm": "operator new",
		"_Znam": "operator new[]",
		"_cgo_c487043d8c8c_Cfunc_testalloc_synthetic_leak":       "C.testalloc_synthetic_leak",
		"github.com/rocksleak/rocksleak/lifecycle.leakSynthetic": "github.com/rocksleak/rocksleak/lifecycle.leakSynthetic",
	} {
		assert.Equal(t, want, functionName(sym), sym)
	}
}
