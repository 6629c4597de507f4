package heapprof

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixtures(t *testing.T) (warm, end *Dump) {
	t.Helper()
	warm, err := ParseFile("testdata/warm.heap")
	require.NoError(t, err)
	end, err = ParseFile("testdata/end.heap")
	require.NoError(t, err)
	return warm, end
}

func sampleValue(t *testing.T, p *profile.Profile, s *profile.Sample, typ string) int64 {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return s.Value[i]
		}
	}
	t.Fatalf("no sample type %s", typ)
	return 0
}

func TestGrowthFixture(t *testing.T) {
	warm, end := fixtures(t)
	p, err := Growth(warm, end, NewSymbolizer())
	require.NoError(t, err)

	// The leak's stack: 3715 samples of 1902154 bytes at the end, 606 of 310284 after warm-up, each ≈ 512 bytes.
	k := func(n, s float64) float64 { return 1 / (1 - math.Exp(-(s/n)/16384)) }
	wantLeak := 1902154*k(3715, 1902154) - 310284*k(606, 310284)
	var leak *profile.Sample
	for _, s := range p.Sample {
		if s.Location[4].Address == 0x6bf669-1 { // testalloc_synthetic_leak's return address, moved onto the call
			leak = s
		}
	}
	require.NotNil(t, leak)
	assert.InDelta(t, wantLeak, float64(sampleValue(t, p, leak, SampleInuseSpace)), 1)
	assert.Equal(t, int64(0x6bf669), int64(end.Records[0].Stack[4]), "fixture stack")
	assert.Equal(t, uint64(0x7ffb080a2630), leak.Location[0].Address, "the innermost address is not a return address")
	// The known answer: 100000 iterations × 512 bytes.
	assert.InEpsilon(t, 100000*512.0, wantLeak, 0.10)
	// The churn stack allocated ≈ 100000 × (4096 + 48) bytes between the dumps and holds none of them.
	for _, s := range p.Sample {
		if s != leak && sampleValue(t, p, s, SampleAllocSpace) > 0 {
			assert.Zero(t, sampleValue(t, p, s, SampleInuseSpace))
			assert.InEpsilon(t, 100000*(4096+48.0), float64(sampleValue(t, p, s, SampleAllocSpace)), 0.10)
		}
	}
	// Stacks whose counts did not change between the dumps are left out.
	assert.Len(t, p.Sample, 2)

	// pprof reads back what Growth wrote.
	var buf bytes.Buffer
	require.NoError(t, p.Write(&buf))
	q, err := profile.Parse(&buf)
	require.NoError(t, err)
	assert.Equal(t, SampleInuseSpace, q.DefaultSampleType)
	assert.Len(t, q.Sample, 2)
}

func TestGrowthRejectsDumpsOfDifferentRuns(t *testing.T) {
	warm, end := fixtures(t)
	other := *warm
	other.SamplePeriod = 1 << 19
	_, err := Growth(&other, end, NewSymbolizer())
	assert.ErrorContains(t, err, "sampling intervals differ")

	other = *warm
	other.Mappings = append([]Mapping(nil), warm.Mappings...)
	for i := range other.Mappings {
		if other.Mappings[i].Perms == "r-xp" {
			other.Mappings[i].Start += 0x1000
			other.Mappings[i].Limit += 0x1000
			break
		}
	}
	_, err = Growth(&other, end, NewSymbolizer())
	assert.ErrorContains(t, err, "not of one process")
}
