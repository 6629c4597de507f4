package heapprof

import (
	"math"
	"math/rand/v2"
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

// TestInuseVarianceKnownAnswer samples a known population as jemalloc does (each object of size m seen with
// probability 1 − exp(−m/R)), many times over: the unsampled estimate's variance across draws is what InuseVariance
// estimates from each draw's samples, on average within a few percent; and for a record of small objects it is about
// R times their bytes.
func TestInuseVarianceKnownAnswer(t *testing.T) {
	const r = 1 << 15
	// Sizes of the population's records: small objects (as the options' and cache's), one near R, large blocks.
	pop := []struct {
		n    int
		size int64
	}{{20000, 64}, {5000, 512}, {800, 4096}, {200, 1 << 15}, {20, 1 << 20}}
	rng := rand.New(rand.NewPCG(1, 2))
	const draws = 4000
	var sum, sumSq, varSum float64
	for range draws {
		d := &Dump{SamplePeriod: r}
		for _, p := range pop {
			pi := -math.Expm1(-float64(p.size) / r)
			k := 0
			for range p.n {
				if rng.Float64() < pi {
					k++
				}
			}
			d.Records = append(d.Records, Record{Counts: Counts{InuseObjects: int64(k), InuseBytes: int64(k) * p.size}})
		}
		var est float64
		for _, rec := range d.Records {
			_, b, _, _ := d.Estimate(rec.Counts)
			est += b
		}
		sum += est
		sumSq += est * est
		varSum += d.InuseVariance()
	}
	mean := sum / draws
	empirical := sumSq/draws - mean*mean
	t.Logf("estimate's variance across draws %.4g, mean InuseVariance %.4g", empirical, varSum/draws)
	// The standard error of a variance from 4000 draws is about sqrt(2/4000) = 2.2% of it.
	assert.InEpsilon(t, empirical, varSum/draws, 0.07)

	// One record of small objects: about R·bytes.
	d := &Dump{SamplePeriod: r, Records: []Record{{Counts: Counts{InuseObjects: 100, InuseBytes: 100 * 16}}}}
	_, b, _, _ := d.Estimate(d.Records[0].Counts)
	assert.InEpsilon(t, r*b, d.InuseVariance(), 0.001)
	// Objects far larger than R: none.
	d = &Dump{SamplePeriod: r, Records: []Record{{Counts: Counts{InuseObjects: 3, InuseBytes: 3 << 25}}}}
	assert.Less(t, d.InuseVariance(), 1.0)
}
