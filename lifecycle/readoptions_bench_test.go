package lifecycle_test

import (
	"path/filepath"
	"testing"

	"github.com/linxGnu/grocksdb"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/measure"
)

// nativeHeap reads the process's C heap in use (glibc mallinfo2 uordblks +
// hblkhd, or jemalloc's stats.allocated when it is preloaded).
func nativeHeap(b *testing.B, s *measure.Sampler) int64 {
	b.Helper()
	m, err := s.Read()
	require.NoError(b, err)
	require.NotEqual(b, measure.Unavailable, m.NativeHeap)
	return m.NativeHeap
}

// BenchmarkReadOptionsLeak measures the native heap one store lifecycle (open,
// put, clean close) leaves behind under fixed (Kafka 4.3.1, which leaks
// RocksJava's per-instance defaultReadOptions_) and under all-fixes (the same
// plus the store-side release): the two models differ only by the read-options
// fix, so the difference of their native-B/lifecycle is that leak's cost.
// "object" is the direct cost of one default read options object.
//
//	go test ./lifecycle -run '^$' -bench ReadOptionsLeak -benchtime 1000x -count 3
func BenchmarkReadOptionsLeak(b *testing.B) {
	sampler, err := measure.NewSampler()
	require.NoError(b, err)
	defer sampler.Close()
	for _, m := range []lifecycle.Model{lifecycle.Fixed, lifecycle.AllFixes} {
		b.Run(m.Name, func(b *testing.B) {
			env := lifecycle.NewEnv(nil)
			cfg := lifecycle.Config{Path: filepath.Join(b.TempDir(), "store"), Model: m}
			cycle := func() {
				s, err := lifecycle.Open(env, cfg)
				require.NoError(b, err)
				require.NoError(b, s.Put([]byte("k"), []byte("v")))
				require.NoError(b, s.Close())
			}
			for range 50 { // warm up the allocator's arenas and the path's files
				cycle()
			}
			before, live0 := nativeHeap(b, sampler), env.Ledger.Live()[lifecycle.KindReadOptions]
			b.ResetTimer()
			for range b.N {
				cycle()
			}
			b.StopTimer()
			after, live1 := nativeHeap(b, sampler), env.Ledger.Live()[lifecycle.KindReadOptions]
			b.ReportMetric(float64(after-before)/float64(b.N), "native-B/lifecycle")
			b.ReportMetric(float64(live1-live0)/float64(b.N), "live-read-options/lifecycle")
		})
	}
	b.Run("object", func(b *testing.B) {
		ros := make([]*grocksdb.ReadOptions, 0, b.N)
		before := nativeHeap(b, sampler)
		for range b.N {
			ros = append(ros, grocksdb.NewDefaultReadOptions())
		}
		after := nativeHeap(b, sampler)
		for _, ro := range ros {
			ro.Destroy()
		}
		b.ReportMetric(float64(after-before)/float64(b.N), "native-B/object")
	})
}
