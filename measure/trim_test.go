package measure

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/measure/internal/testalloc"
	"github.com/rocksleak/rocksleak/spec"
)

// TestTrimNativeHeapKeepsBytesInUse: trimming a fragmented heap returns free memory, not memory in use: the
// native-heap figure is the same before and after (within what the runtime may malloc meanwhile).
func TestTrimNativeHeapKeepsBytesInUse(t *testing.T) {
	if processAllocator() != spec.AllocatorGlibc {
		t.Skip("glibc only")
	}
	held := make([]unsafe.Pointer, 4000)
	for i := range held {
		held[i] = testalloc.Malloc(200 + (i%50)*16)
	}
	for i := 0; i < len(held); i += 2 {
		testalloc.Free(held[i])
	}
	t.Cleanup(func() {
		for i := 1; i < len(held); i += 2 {
			testalloc.Free(held[i])
		}
	})
	before, err := nativeHeapInUse(processAllocator())
	require.NoError(t, err)
	TrimNativeHeap()
	after, err := nativeHeapInUse(processAllocator())
	require.NoError(t, err)
	assert.InDelta(t, before, after, 4096, "bytes in use")
}

// TestNativeHeapFreeChunksCountsTheHoles: freeing every other one of 4,000 chunks leaves holes that mallinfo2 walks
// (all but the few tcache keeps), and freeing the rest lets them coalesce again. It runs on one OS thread: a
// goroutine moved between threads spreads the frees over several threads' tcaches, whose chunks keep their
// neighbours from coalescing (175 free chunks left over the base instead of < 100, 2 of 40 runs under -race beside
// three busy loops).
func TestNativeHeapFreeChunksCountsTheHoles(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if processAllocator() != spec.AllocatorGlibc {
		assert.Equal(t, int64(-1), NativeHeapFreeChunks())
		return
	}
	TrimNativeHeap()
	base := NativeHeapFreeChunks()
	require.Positive(t, base, "every arena's top chunk counts")
	held := make([]unsafe.Pointer, 4000)
	for i := range held {
		held[i] = testalloc.Malloc(200 + (i%50)*16)
	}
	for i := 0; i < len(held); i += 2 {
		testalloc.Free(held[i])
	}
	holes := NativeHeapFreeChunks()
	for i := 1; i < len(held); i += 2 {
		testalloc.Free(held[i])
	}
	TrimNativeHeap()
	after := NativeHeapFreeChunks()
	assert.Greater(t, holes-base, int64(1000), "2,000 holes between chunks in use")
	assert.Less(t, after-base, int64(100), "coalesced once their neighbours are free")
}
