package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardPartition: every seed of a sweep falls in exactly one shard, in
// order, round robin, shard sizes within one of each other.
func TestShardPartition(t *testing.T) {
	for _, tc := range []struct{ first, count, n int }{{1, 4, 2}, {1, 20, 4}, {7, 5, 3}, {1, 2, 5}, {3, 1, 1}} {
		seen := map[int64]int{}
		minLen, maxLen := tc.count, 0
		for k := 1; k <= tc.n; k++ {
			got := shard{k, tc.n}.seeds(int64(tc.first), tc.count)
			for i, s := range got {
				seen[s]++
				if i > 0 {
					assert.Greater(t, s, got[i-1])
				}
				assert.Equal(t, k-1, int(s-int64(tc.first))%tc.n, "seed %d in shard %d/%d", s, k, tc.n)
			}
			minLen, maxLen = min(minLen, len(got)), max(maxLen, len(got))
		}
		require.Len(t, seen, tc.count, "%+v", tc)
		for s, c := range seen {
			assert.Equal(t, 1, c, "seed %d", s)
			assert.GreaterOrEqual(t, s, int64(tc.first))
			assert.Less(t, s, int64(tc.first+tc.count))
		}
		assert.LessOrEqual(t, maxLen-minLen, 1)
	}
	assert.Equal(t, []int64{1, 3}, shard{1, 2}.seeds(1, 4))
	assert.Equal(t, []int64{2, 4}, shard{2, 2}.seeds(1, 4))
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]shard{"": {1, 1}, "1/1": {1, 1}, "2/4": {2, 4}, "4/4": {4, 4}} {
		got, err := parseShard(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"0/2", "3/2", "1", "a/b", "1/0", "-1/2", "1/2/3"} {
		_, err := parseShard(in)
		assert.ErrorIs(t, err, errUsage, in)
	}
}
