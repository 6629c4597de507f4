package lifecycle

/*
#cgo CXXFLAGS: -std=c++17
#cgo LDFLAGS: -lrocksdb -lstdc++
#include <stdlib.h>
#include "bounded_shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/linxGnu/grocksdb"
)

// BoundedMemoryConfig is Kafka's documented bounded-memory RocksDBConfigSetter
// (docs/streams/developer-guide/memory-mgmt, "BoundedMemoryRocksDBConfig"):
// one LRU cache shared by every store, a WriteBufferManager that charges
// memtable memory to that cache, and index and filter blocks kept in it.
type BoundedMemoryConfig struct {
	// CacheBytes is the shared cache's capacity (the docs' TOTAL_OFF_HEAP_MEMORY).
	CacheBytes int64
	// WriteBufferBytes is the write-buffer manager's limit on all memtables
	// (the docs' TOTAL_MEMTABLE_MEMORY); it is charged to the cache. It is a
	// flush trigger, not a hard cap (allow_stall is false, as in the docs).
	WriteBufferBytes int64
	// StrictCapacity makes inserts fail rather than exceed the capacity. The
	// docs' example passes false (new LRUCache(..., -1, false, ratio)) and
	// mentions true as the way to enforce the bound strictly.
	StrictCapacity bool
	// HighPriPoolRatio is the docs' INDEX_FILTER_BLOCK_RATIO: the fraction of
	// the cache kept for index and filter blocks.
	HighPriPoolRatio float64
}

// Validate reports a config the shim cannot build.
func (c BoundedMemoryConfig) Validate() error {
	switch {
	case c.CacheBytes <= 0:
		return fmt.Errorf("bounded memory: cache bytes must be positive, got %d", c.CacheBytes)
	case c.WriteBufferBytes <= 0:
		return fmt.Errorf("bounded memory: write buffer bytes must be positive, got %d", c.WriteBufferBytes)
	case c.HighPriPoolRatio < 0 || c.HighPriPoolRatio > 1:
		return fmt.Errorf("bounded memory: high-priority pool ratio must be in [0, 1], got %g", c.HighPriPoolRatio)
	}
	return nil
}

// BoundedMemory owns one shared RocksDB block cache (LRU) and one
// WriteBufferManager charged to it, built through RocksDB's C++ API
// (bounded_shim.cc) because RocksDB 7.8.3's C API has no write-buffer manager.
//
// Ownership: BoundedMemory holds one std::shared_ptr to each object. Apply
// copies those pointers into option objects, and every DB opened with them
// holds its own reference, so Close may run while such DBs are open: it drops
// only BoundedMemory's references (write-buffer manager first, then cache),
// exactly once; the objects go when the last DB and options holding them go.
// Close is idempotent and safe for concurrent use with Usage and Apply.
type BoundedMemory struct {
	mu       sync.Mutex
	c        *C.rocksleak_bounded
	capacity int64
	strict   bool
}

// NewBoundedMemory builds the bounded-memory objects with a strict-capacity
// cache of cacheBytes and a write-buffer manager limited to writeBufferBytes,
// with the docs' example's 0.1 high-priority pool ratio for index and filter
// blocks (any ratio > 0 is needed for that option to take effect).
func NewBoundedMemory(cacheBytes, writeBufferBytes int64) (*BoundedMemory, error) {
	return NewBoundedMemoryConfig(BoundedMemoryConfig{
		CacheBytes:       cacheBytes,
		WriteBufferBytes: writeBufferBytes,
		StrictCapacity:   true,
		HighPriPoolRatio: 0.1,
	})
}

// NewBoundedMemoryConfig builds the bounded-memory objects of cfg.
func NewBoundedMemoryConfig(cfg BoundedMemoryConfig) (*BoundedMemory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkGrocksdbLayout(); err != nil {
		return nil, err
	}
	strict := C.int(0)
	if cfg.StrictCapacity {
		strict = 1
	}
	var cerr *C.char
	c := C.rocksleak_bounded_new(C.size_t(cfg.CacheBytes), C.size_t(cfg.WriteBufferBytes), strict,
		C.double(cfg.HighPriPoolRatio), &cerr)
	if c == nil {
		msg := "unknown error"
		if cerr != nil {
			msg = C.GoString(cerr)
			C.free(unsafe.Pointer(cerr))
		}
		return nil, fmt.Errorf("bounded memory: %s", msg)
	}
	return &BoundedMemory{
		c:        c,
		capacity: int64(C.rocksleak_bounded_cache_capacity(c)),
		strict:   C.rocksleak_bounded_strict_capacity(c) != 0,
	}, nil
}

// ErrBoundedMemoryClosed is returned by Apply after Close.
var ErrBoundedMemoryClosed = errors.New("bounded memory: closed")

// Apply attaches the shared objects as Kafka's example config setter does:
// tableConfig.setBlockCache(cache), setCacheIndexAndFilterBlocks(true),
// setCacheIndexAndFilterBlocksWithHighPriority(true),
// setPinTopLevelIndexAndFilter(true), options.setWriteBufferManager(wbm), then
// options.setTableFormatConfig(tableConfig) (here opts.SetBlockBasedTableFactory(tbl)).
// Both opts and tbl must be live (not destroyed). Settings made on tbl after
// Apply do not reach opts unless the caller calls SetBlockBasedTableFactory again.
func (b *BoundedMemory) Apply(opts *grocksdb.Options, tbl *grocksdb.BlockBasedTableOptions) error {
	if opts == nil || tbl == nil {
		return errors.New("bounded memory: Apply needs options and table options")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return ErrBoundedMemoryClosed
	}
	op, tp := optionsPointer(opts), tableOptionsPointer(tbl)
	if op == nil || tp == nil {
		return errors.New("bounded memory: options or table options already destroyed")
	}
	C.rocksleak_bounded_apply(b.c, op, tp)
	opts.SetBlockBasedTableFactory(tbl)
	return nil
}

// Usage returns RocksDB's own figures in bytes: the shared cache's
// Cache::GetUsage() (blocks plus the write-buffer manager's dummy entries),
// Cache::GetPinnedUsage(), and WriteBufferManager::memory_usage() (all
// memtables of every DB using it). After Close it returns zeros.
func (b *BoundedMemory) Usage() (cacheUsage, cachePinned, wbmUsage int64) {
	u := b.usage()
	return u.cache, u.pinned, u.wbm
}

type boundedUsage struct{ cache, pinned, wbm, dummy int64 }

func (b *BoundedMemory) usage() boundedUsage {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return boundedUsage{}
	}
	var cu, cp, wu, wd C.uint64_t
	C.rocksleak_bounded_usage(b.c, &cu, &cp, &wu, &wd)
	return boundedUsage{cache: int64(cu), pinned: int64(cp), wbm: int64(wu), dummy: int64(wd)}
}

// Capacity is the shared cache's capacity in bytes, as RocksDB reports it.
func (b *BoundedMemory) Capacity() int64 { return b.capacity }

// StrictCapacity reports Cache::HasStrictCapacityLimit().
func (b *BoundedMemory) StrictCapacity() bool { return b.strict }

// Close drops BoundedMemory's references to the write-buffer manager and the
// cache, exactly once. Later calls do nothing and return nil.
func (b *BoundedMemory) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c == nil {
		return nil
	}
	C.rocksleak_bounded_destroy(b.c)
	b.c = nil
	return nil
}

// grocksdb v1.7.14 keeps the C pointers of Options and BlockBasedTableOptions
// in an unexported first field `c` and exports no accessor or native
// constructor for either type. optionsPointer and tableOptionsPointer read that
// field through unsafe; checkGrocksdbLayout verifies, by reflection, that the
// first field is still a pointer named c to the C type expected, so a grocksdb
// upgrade that changes the layout fails NewBoundedMemory instead of corrupting
// memory. bounded_test.go checks that the pointers reach live option objects.
var (
	layoutOnce sync.Once
	layoutErr  error
)

func checkGrocksdbLayout() error {
	layoutOnce.Do(func() {
		layoutErr = errors.Join(
			checkFirstField(reflect.TypeOf(grocksdb.Options{}), "rocksdb_options_t"),
			checkFirstField(reflect.TypeOf(grocksdb.BlockBasedTableOptions{}), "rocksdb_block_based_table_options_t"),
		)
	})
	return layoutErr
}

func checkFirstField(t reflect.Type, ctype string) error {
	if t.NumField() == 0 {
		return fmt.Errorf("bounded memory: grocksdb.%s has no fields", t.Name())
	}
	f := t.Field(0)
	want := "_Ctype_struct_" + ctype
	if f.Name != "c" || f.Offset != 0 || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Name() != want {
		return fmt.Errorf("bounded memory: grocksdb.%s's first field is %s %s, want c *%s",
			t.Name(), f.Name, f.Type, want)
	}
	return nil
}

func optionsPointer(o *grocksdb.Options) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(o))
}

func tableOptionsPointer(t *grocksdb.BlockBasedTableOptions) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(t))
}

// Probes for bounded_test.go (cgo is not available in _test.go files): they
// read the option objects through the shim's view of their layout.

func probeWriteBufferSize(o *grocksdb.Options) uint64 {
	return uint64(C.rocksleak_bounded_probe_write_buffer_size(optionsPointer(o)))
}

func probeBlockSize(t *grocksdb.BlockBasedTableOptions) uint64 {
	return uint64(C.rocksleak_bounded_probe_block_size(tableOptionsPointer(t)))
}

// probeUses reports whether o's write-buffer manager and t's block cache are
// b's objects. b must not be closed.
func (b *BoundedMemory) probeUses(o *grocksdb.Options, t *grocksdb.BlockBasedTableOptions) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.c != nil && C.rocksleak_bounded_probe_uses(b.c, optionsPointer(o), tableOptionsPointer(t)) != 0
}
