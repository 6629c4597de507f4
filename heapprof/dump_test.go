package heapprof

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fixtures are two real dumps of measure's known-answer child (testdata/heapprofchild), lg_prof_sample 14,
// after 20000 warm-up iterations and after 100000 more; each iteration leaked 512 bytes from
// testalloc_synthetic_leak and allocated and freed 4096 + 48 bytes.

func TestParseFixture(t *testing.T) {
	d, err := ParseFile("testdata/end.heap")
	require.NoError(t, err)
	assert.Equal(t, int64(16384), d.SamplePeriod)
	assert.Equal(t, Counts{InuseObjects: 3720, InuseBytes: 1907178, AllocObjects: 32557, AllocBytes: 50539082}, d.Total)
	require.Len(t, d.Records, 3)
	assert.Equal(t, []uint64{0x7ffb080a2630, 0x7ffb080a2d21, 0x7ffb08095f24, 0x7ffb08022045, 0x6bf669, 0x6bf707, 0x492204}, d.Records[0].Stack)
	assert.Equal(t, Counts{InuseObjects: 3715, InuseBytes: 1902154, AllocObjects: 3715, AllocBytes: 1902154}, d.Records[0].Counts)
	assert.Equal(t, Counts{AllocObjects: 28501, AllocBytes: 59185062}, d.Records[1].Counts)
	require.NotEmpty(t, d.Mappings)
	assert.Equal(t, Mapping{Start: 0x400000, Limit: 0x402000, Offset: 0, Perms: "r--p", Path: "/tmp/go-build3341853535/b001/measure.test"}, d.Mappings[0])
}

func TestParseErrors(t *testing.T) {
	const maps = "MAPPED_LIBRARIES:\n00400000-00402000 r--p 00000000 fe:00 1 /bin/x\n"
	for _, tc := range []struct{ name, in string }{
		{"empty", ""},
		{"other format", "heap profile: 1: 2 [3: 4] @ heap\n"},
		{"bad period", "heap_v2/zero\n  t*: 0: 0 [0: 0]\n" + maps},
		{"bad counts", "heap_v2/16\n  t*: 1: x [0: 0]\n" + maps},
		{"short counts", "heap_v2/16\n  t*: 1: 2\n" + maps},
		{"bad address", "heap_v2/16\n  t*: 1: 2 [0: 0]\n@ 0xzz\n  t*: 1: 2 [0: 0]\n" + maps},
		{"stack without counts", "heap_v2/16\n  t*: 1: 2 [0: 0]\n@ 0x1\n" + maps},
		{"two t* for one stack", "heap_v2/16\n  t*: 1: 2 [0: 0]\n@ 0x1\n  t*: 1: 2 [0: 0]\n  t*: 1: 2 [0: 0]\n" + maps},
		{"truncated", "heap_v2/16\n  t*: 1: 2 [0: 0]\n@ 0x1\n  t*: 1: 2 [0: 0]\n"},
		{"bad mapping", "heap_v2/16\n  t*: 1: 2 [0: 0]\nMAPPED_LIBRARIES:\nnot-a-mapping r-xp\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.in))
			assert.ErrorIs(t, err, ErrFormat)
		})
	}
}

func TestUnsample(t *testing.T) {
	const r = 1 << 14
	e := math.E
	for _, tc := range []struct {
		name         string
		n, s         int64
		wantN, wantS float64
	}{
		{"none", 0, 0, 0, 0},
		// One sample of size R is seen with probability 1 − 1/e.
		{"size R", 1, r, e / (e - 1), r * e / (e - 1)},
		// Objects far larger than R are always sampled: no scaling.
		{"huge", 2, 2 * 64 * r, 2, 2 * 64 * r},
		// Small objects of size x are sampled with probability ≈ x/R: n samples stand for ≈ n·R/x objects.
		{"small", 100, 100 * 16, 100 * r / 16.0, 100 * r},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, s := unsample(tc.n, tc.s, r)
			assert.InEpsilon(t, tc.wantN+1e-9, n+1e-9, 0.001)
			assert.InEpsilon(t, tc.wantS+1e-9, s+1e-9, 0.001)
		})
	}
}
