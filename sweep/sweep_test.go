package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// TestShardPartition: every seed of a sweep falls in exactly one shard, in
// order, round robin, shard sizes within one of each other.
func TestShardPartition(t *testing.T) {
	for _, tc := range []struct{ first, count, n int }{{1, 4, 2}, {1, 20, 4}, {7, 5, 3}, {1, 2, 5}, {3, 1, 1}} {
		seen := map[int64]int{}
		minLen, maxLen := tc.count, 0
		for k := 1; k <= tc.n; k++ {
			got := Shard{k, tc.n}.Seeds(int64(tc.first), tc.count)
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
	assert.Equal(t, []int64{1, 3}, Shard{1, 2}.Seeds(1, 4))
	assert.Equal(t, []int64{2, 4}, Shard{2, 2}.Seeds(1, 4))
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"": {1, 1}, "1/1": {1, 1}, "2/4": {2, 4}, "4/4": {4, 4}} {
		got, err := ParseShard(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"0/2", "3/2", "1", "a/b", "1/0", "-1/2", "1/2/3"} {
		_, err := ParseShard(in)
		assert.ErrorContains(t, err, "is not K/N with 1 ≤ K ≤ N", in)
	}
}

// TestUntilVerdictSettlingInLifecycles: with --until-verdict, each seed's line
// and the sweep's summary give when the verdicts settled in lifecycles as well
// as in seconds (which stretch with the machine's load), and the report keeps
// them for merge.
func TestUntilVerdictSettlingInLifecycles(t *testing.T) {
	yes := true
	look := func(l int64, s float64) *schema.Look {
		return &schema.Look{Lifecycles: l, ElapsedNs: int64(s * 1e9), Leak: &yes}
	}
	rep := New("kafka-20616", []string{"leaky", "fixed"}, 1, 3, true)
	var lines [][]string
	for i, l := range []int64{640, 300, 1040} {
		res := &schema.Result{Runs: map[string]*schema.Run{
			"leaky": {Verdict: &schema.Verdict{Leak: &yes}, Sequential: &schema.SequentialOutcome{
				Native: look(l-100, float64(i)+1), Verdict: look(l, float64(i)+2)}},
			"fixed": {Verdict: &schema.Verdict{}, Sequential: &schema.SequentialOutcome{}},
		}}
		lines = append(lines, AddSeed(rep, int64(i+1), t.TempDir(), res))
	}
	assert.Contains(t, strings.Join(lines[0], " "), "(native leak at 1.0s, 540 lifecycles; verdict leak at 2.0s, 640 lifecycles)")
	assert.Contains(t, strings.Join(lines[0], " "), "fixed=inconclusive (native unsettled; verdict unsettled)")
	assert.Equal(t, []int64{540, 200, 940}, rep.Tally["leaky"].NativeSettledLifecycles)
	assert.Equal(t, []int64{640, 300, 1040}, rep.Tally["leaky"].VerdictSettledLifecycles)
	var out bytes.Buffer
	require.NoError(t, Write(&out, t.TempDir(), rep))
	assert.Contains(t, out.String(), "until-verdict leaky: native verdict settled in 3/3 runs, max 3.0s, 200–940 (median 540) lifecycles; "+
		"verdict settled in 3/3, max 4.0s, 300–1040 (median 640) lifecycles; early verdict leak in 3")
	assert.Contains(t, out.String(), "until-verdict fixed: native verdict settled in 0/3 runs, max 0.0s, no lifecycles;")
}

func TestLifecycleRange(t *testing.T) {
	for _, tc := range []struct {
		in   []int64
		want string
	}{
		{nil, "no"},
		{[]int64{500}, "500–500 (median 500)"},
		{[]int64{900, 100, 300, 700}, "100–900 (median 500)"},
		{[]int64{3, 1, 2}, "1–3 (median 2)"},
	} {
		assert.Equal(t, tc.want, lifecycleRange(tc.in), "%v", tc.in)
	}
}
