package results

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

func profiledResult() *schema.Result {
	nativeGrowth := int64(12_500_000)
	fit := func(v float64) map[string]schema.SignalFit {
		return map[string]schema.SignalFit{"native_heap": {Fit: stats.Fit{PerLifecycle: stats.Estimate{Value: v}}}}
	}
	return &schema.Result{
		Models: []string{"leaky", "fixed", "fixed+synthetic", "unprofiled"},
		Runs: map[string]*schema.Run{
			"leaky": {Fits: fit(16000), Profile: &schema.HeapProfile{File: "leaky/growth.pb.gz",
				SamplingIntervalBytes: 32768, WarmLifecycles: 200, EndLifecycles: 1000, Lifecycles: 800,
				GrowthBytes: 9_000_000, PromotedBytes: 4_000_000, NativeHeapGrowthBytes: &nativeGrowth,
				GrowthSDBytes: 600_000,
				Functions: []schema.ProfileFunction{{Function: "rocksdb::port::cacheline_aligned_alloc", Bytes: 3_000_000},
					{Function: "rocksdb_options_create", Bytes: 5_000_000}, {Function: "rocksdb_readoptions_create", Bytes: 1_200_000},
					{Function: "rocksdb::Timer::Add", Bytes: -200_000}}}},
			"fixed": {Fits: fit(1000), Profile: &schema.HeapProfile{File: "fixed/growth.pb.gz",
				SamplingIntervalBytes: 32768, WarmLifecycles: 100, EndLifecycles: 500, Lifecycles: 400,
				GrowthBytes: 400_000, PromotedBytes: 100_000,
				Functions: []schema.ProfileFunction{{Function: "rocksdb_readoptions_create", Bytes: 600_000},
					{Function: "rocksdb::Timer::Add", Bytes: -200_000}},
				Intervals: []schema.ProfileInterval{
					{FromLifecycles: 100, ToLifecycles: 300, GrowthBytes: 500_000,
						Functions: []schema.ProfileFunction{{Function: "rocksdb_readoptions_create", Bytes: 300_000}}},
					{FromLifecycles: 300, ToLifecycles: 500, GrowthBytes: -100_000}}}},
			"fixed+synthetic": {Profile: &schema.HeapProfile{Error: "1 heap dump(s): the run ended before the warm-up dump or right after it"}},
			"unprofiled":      {},
		},
	}
}

// TestProfileSectionGolden renders the "Where the growth was allocated" section: per model its table, the
// agreement line and the intervals, leaky minus fixed, and a failed profile.
func TestProfileSectionGolden(t *testing.T) {
	var b bytes.Buffer
	reportProfiles(&b, profiledResult())
	golden.Check(t, filepath.Join("testdata", "profile", "section.md"), b.Bytes())
}

// TestProfileSectionAbsentWithoutProfiles: a run without --profile has no such section.
func TestProfileSectionAbsentWithoutProfiles(t *testing.T) {
	var b bytes.Buffer
	reportProfiles(&b, &schema.Result{Models: []string{"leaky"}, Runs: map[string]*schema.Run{"leaky": {}}})
	assert.Empty(t, b.String())
}

// TestProfileDiffAndPairs: leaky minus fixed is per lifecycle (fixed's growth scaled to leaky's lifecycles), and
// the pairs are a synthetic model minus its control and every other model minus fixed.
func TestProfileDiffAndPairs(t *testing.T) {
	r := profiledResult()
	assert.Equal(t, [][2]string{{"leaky", "fixed"}}, ProfilePairs(r))
	d, ok := ProfileDiff("leaky", r.Runs["leaky"], "fixed", r.Runs["fixed"])
	require.True(t, ok)
	per := map[string]float64{}
	for _, row := range d.Rows {
		per[row.Function] = row.BytesPerLifecycle
	}
	assert.InDelta(t, 1_200_000.0/800-600_000.0/400, per["rocksdb_readoptions_create"], 1e-9)
	assert.InDelta(t, 5_000_000.0/800, per["rocksdb_options_create"], 1e-9)
	assert.InDelta(t, -200_000.0/800+200_000.0/400, per["rocksdb::Timer::Add"], 1e-9)
	assert.Equal(t, "rocksdb_options_create", d.Rows[0].Function)

	r.Models = append(r.Models, "fixed+synthetic@jemalloc", "fixed@jemalloc")
	r.Runs["fixed+synthetic@jemalloc"], r.Runs["fixed@jemalloc"] = r.Runs["leaky"], r.Runs["fixed"]
	assert.Equal(t, [][2]string{{"leaky", "fixed"}, {"fixed+synthetic@jemalloc", "fixed@jemalloc"}}, ProfilePairs(r))

	// The native heap read at the dumps is what the profile is compared with; the slope is only reported.
	a, ok := ProfileAgreement(r.Runs["leaky"])
	require.True(t, ok)
	assert.True(t, a.AtDumps)
	assert.InDelta(t, 9_000_000.0/800, a.Profile, 1e-9)
	assert.InDelta(t, 12_500_000.0/800, a.Native, 1e-9)
	assert.InDelta(t, 16000, a.Slope, 1e-9)
	assert.InDelta(t, 5000, a.Promoted, 1e-9)
	assert.InDelta(t, 9_000_000.0/(12_500_000-4_000_000), a.Ratio, 1e-9)
	assert.InDelta(t, 600_000.0/(12_500_000-4_000_000), a.RatioSD, 1e-9)

	// A result made before the child read its native heap at the dumps: the slope stands in.
	a, ok = ProfileAgreement(r.Runs["fixed"])
	require.True(t, ok)
	assert.False(t, a.AtDumps)
	assert.InDelta(t, 1000, a.Native, 1e-9)
	assert.InDelta(t, 400_000.0/(1000*400-100_000), a.Ratio, 1e-9)
	assert.Zero(t, a.RatioSD)

	// Neither figure: no agreement.
	_, ok = ProfileAgreement(&schema.Run{Profile: &schema.HeapProfile{Lifecycles: 10, GrowthBytes: 1}})
	assert.False(t, ok)
}
