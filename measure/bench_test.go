package measure

import (
	"strconv"
	"testing"
	"unsafe"

	"github.com/rocksleak/rocksleak/measure/internal/testalloc"
)

// BenchmarkSample measures one full Read of the calling process: statm, fd directory, native heap and Go heap.
func BenchmarkSample(b *testing.B) {
	s, err := NewSampler()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Read(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSampleParts measures each source of a Read on its own, to show where the time goes.
func BenchmarkSampleParts(b *testing.B) {
	s, err := NewSampler()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	parts := []struct {
		name string
		read func() error
	}{
		{"statm", func() error { _, _, err := s.statm.read(); return err }},
		{"fd", func() error { _, err := s.fds.count(); return err }},
		{"fd_listing", func() error { _, err := s.fds.countByListing(); return err }},
		{"native_heap", func() error { _, err := nativeHeapInUse(s.alloc); return err }},
		{"go_heap", func() error { _, _, err := s.goHeap.read(); return err }},
	}
	for _, p := range parts {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := p.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSampleFragmentedHeap measures the native-heap read with a fragmented heap: glibc's mallinfo2 walks every
// free chunk (holding the arena's lock), so its cost grows with their number; jemalloc's does not.
func BenchmarkSampleFragmentedHeap(b *testing.B) {
	s, err := NewSampler()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	for _, free := range []int{1_000, 10_000} {
		b.Run("free_chunks="+strconv.Itoa(free), func(b *testing.B) {
			// Free every other allocation so that the holes cannot coalesce.
			held := make([]unsafe.Pointer, 2*free)
			for i := range held {
				held[i] = testalloc.Malloc(200 + (i%50)*16)
			}
			for i := 0; i < len(held); i += 2 {
				testalloc.Free(held[i])
			}
			b.Cleanup(func() {
				for i := 1; i < len(held); i += 2 {
					testalloc.Free(held[i])
				}
			})
			for b.Loop() {
				if _, err := nativeHeapInUse(s.alloc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
