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
		// The allocator's frames (the four in libjemalloc) are dropped: the first location is the allocating
		// function, testalloc_synthetic_leak, at its return address moved back onto the call.
		if s.Location[0].Address == 0x6bf669-1 {
			leak = s
		}
	}
	require.NotNil(t, leak)
	assert.InDelta(t, wantLeak, float64(sampleValue(t, p, leak, SampleInuseSpace)), 1)
	assert.Equal(t, int64(0x6bf669), int64(end.Records[0].Stack[4]), "fixture stack")
	require.Len(t, leak.Location, 3)
	assert.Equal(t, []uint64{0x6bf668, 0x6bf706, 0x492203}, []uint64{leak.Location[0].Address, leak.Location[1].Address, leak.Location[2].Address})
	assert.Equal(t, "/tmp/go-build3341853535/b001/measure.test", p.Mapping[0].File, "the main binary's mapping comes first")
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

func TestGrowthCallerAddresses(t *testing.T) {
	ms := []Mapping{{Start: 0x400000, Limit: 0x500000, Perms: "r-xp", Path: "/nonexistent/bin"}}
	earlier := &Dump{SamplePeriod: 1, Mappings: ms}
	later := &Dump{SamplePeriod: 1, Mappings: ms, Records: []Record{
		{Stack: []uint64{0x401000, 0x401100}, Counts: Counts{InuseObjects: 1, InuseBytes: 1 << 20}},
	}}
	p, err := Growth(earlier, later, NewSymbolizer())
	require.NoError(t, err)
	require.Len(t, p.Sample, 1)
	s := p.Sample[0]
	assert.Equal(t, []uint64{0x401000, 0x4010ff}, []uint64{s.Location[0].Address, s.Location[1].Address},
		"the innermost address is a program counter, the others return addresses moved onto their call")
	assert.Equal(t, int64(1<<20), sampleValue(t, p, s, SampleInuseSpace), "an object far above the period is not scaled")
	require.NotEmpty(t, p.Comments)
	assert.Contains(t, p.Comments[len(p.Comments)-1], "unsymbolized /nonexistent/bin")
}
