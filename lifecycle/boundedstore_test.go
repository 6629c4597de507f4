package lifecycle_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
)

// TestBoundedMemoryLeavesOffsetsCachesOutsideTheBound: with Kafka's
// documented bounded-memory config setter applied to every store (Env.Bounded),
// the data CF uses the shared cache, whose usage RocksDB keeps within its
// capacity, but the offsets CF's options never reach the config setter: under
// leaky (4.3.0) each open's offsets CF has an implicit LRU cache of its own
// (RocksDB reports its capacity on the offsets CF) and the options holding it
// are never released, so those caches pile up outside the bound; under fixed
// the offsets options, with their implicit cache, are released at close, so
// nothing lies outside the bound after the stores close.
func TestBoundedMemoryLeavesOffsetsCachesOutsideTheBound(t *testing.T) {
	const cacheBytes, wbmBytes, opens = 16 << 20, 4 << 20, 20
	for _, tc := range []struct {
		model       lifecycle.Model
		outsideLive int64
	}{{lifecycle.Leaky, opens}, {lifecycle.Fixed, 0}} {
		t.Run(tc.model.Name, func(t *testing.T) {
			bm, err := lifecycle.NewBoundedMemoryConfig(lifecycle.BoundedMemoryConfig{
				CacheBytes: cacheBytes, WriteBufferBytes: wbmBytes, HighPriPoolRatio: 0.1})
			require.NoError(t, err)
			defer bm.Close()
			env := lifecycle.NewEnv(nil)
			env.Bounded = bm
			dir := t.TempDir()
			for i := range opens {
				s, err := lifecycle.Open(env, lifecycle.Config{Path: filepath.Join(dir, fmt.Sprint(i%4)), Model: tc.model})
				require.NoError(t, err)
				for k := range 200 {
					require.NoError(t, s.Put(fmt.Appendf(nil, "k%05d", k), make([]byte, 512)))
				}
				require.NoError(t, s.Commit(map[string]int64{"t-0": int64(k0(i))}))
				capacity, hasCache := s.OffsetsBlockCacheCapacity()
				if tc.model == lifecycle.Leaky {
					assert.True(t, hasCache, "4.3.0's offsets CF has a block cache")
					assert.Equal(t, uint64(8<<20), capacity, "an implicit 8 MiB cache (RocksDB 7.x), not the shared 16 MiB one")
				}
				cache, _, wbm := bm.Usage()
				assert.LessOrEqual(t, cache, int64(cacheBytes)+int64(wbmBytes), "the shared cache stays near its bound")
				assert.Positive(t, wbm, "memtables are charged to the shared cache")
				require.NoError(t, s.Close())
			}
			cache, _, _ := bm.Usage()
			t.Logf("%s: shared cache usage after %d lifecycles: %d B (capacity %d B); offsets options live (each with its implicit cache outside the bound): %d",
				tc.model.Name, opens, cache, bm.Capacity(), env.Ledger.Live()[lifecycle.KindOptions])
			assert.Equal(t, tc.outsideLive, env.Ledger.Live()[lifecycle.KindOptions], "offsets options left live, outside the bound")
		})
	}
}

func k0(i int) int { return i * 200 }
