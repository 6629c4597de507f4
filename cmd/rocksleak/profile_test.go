//go:build cgo

package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/heapprof"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
)

// profiledRun runs "rocksleak run --profile" with args and returns the run directory's result.
func profiledRun(t *testing.T, args ...string) (string, *schema.Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	// The state goes on stateRoot's tmpfs, where every other real run of these tests keeps it. On the disk-backed
	// temporary directory the stores' fsyncs made kv-clean's run wait: 237 s of wall time for 102 s of CPU. The
	// profile's share under the options' construction spreads more on tmpfs (79-91% in five runs, 81-86% on disk),
	// which the assertion's three sampling standard deviations cover (it asserts share + 3 sd ≥ 80%).
	args = append(args, "--profile", "--out", out, "--state-dir", stateRoot(t))
	require.NoError(t, runCmd(context.Background(), &stdout, &stderr, args), stderr.String())
	res, err := schema.Read(filepath.Join(out, "result.json"))
	require.NoError(t, err)
	require.Equal(t, schema.StatusComplete, res.Status)
	report, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(report), "## Where the growth was allocated")
	return out, res
}

// growthProfile reads a model's growth.pb.gz as pprof would.
func growthProfile(t *testing.T, dir string, run *schema.Run) *profile.Profile {
	t.Helper()
	require.NotNil(t, run.Profile)
	require.Empty(t, run.Profile.Error)
	f, err := os.Open(filepath.Join(dir, run.Profile.File))
	require.NoError(t, err)
	defer f.Close()
	p, err := profile.Parse(f)
	require.NoError(t, err)
	return p
}

// optionsConstruction matches the frames of the offsets options' construction: the C API's options constructor,
// the block-based table factory it builds, and that factory's implicit LRU cache (its constructor and the frames of
// RocksDB's LRU cache implementation, namespace rocksdb::lru_cache).
func optionsConstruction(fn string) bool {
	return strings.HasPrefix(fn, "rocksdb_options_create") ||
		strings.Contains(fn, "BlockBasedTableFactory") ||
		strings.HasPrefix(fn, "rocksdb::NewLRUCache") ||
		strings.HasPrefix(fn, "rocksdb::LRUCache::") ||
		strings.HasPrefix(fn, "rocksdb::lru_cache::")
}

// TestProfileKVCleanNamesTheOptionsLeak: on kv-clean, the leaky model's growth between the warm-up dump and the end
// lies ≥ 80% under the offsets options' construction (within the profile's sampling error), and agrees, within three
// of the profile's sampling standard deviations, with its native heap's growth between the same two dumps (less
// jemalloc's promotion of sampled objects; without that correction, the negative control, it does not); the fixed
// model (negative control) grows by less than a tenth as much per lifecycle under the same frames.
func TestProfileKVCleanNamesTheOptionsLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kv-clean's two models under the heap profiler")
	}
	sharesTheCores(t)
	// kv-clean's own stop condition, 1500 lifecycles: the growth between the dumps (about 14 MiB for leaky) is then
	// estimated within about 5% (one standard deviation, sqrt(2^15 / growth)).
	dir, res := profiledRun(t, "--scenario", "kv-clean", "--models", "leaky,fixed")

	leaky := res.Runs["leaky"]
	p := growthProfile(t, dir, leaky)
	through, err := heapprof.GrowthThrough(p, optionsConstruction)
	require.NoError(t, err)
	share := float64(through) / float64(leaky.Profile.GrowthBytes)
	// The share is estimated from jemalloc's samples (one per 32 KiB on average), with a standard deviation of about
	// sqrt(2^15 / growth) of the growth (about 4.7% for kv-clean's ~14 MiB); its runs measured 79-91%. Asserting the
	// point estimate ≥ 80% failed about one run in ten on sampling noise alone, so the assertion is that the share is
	// consistent with ≥ 80% within three of those standard deviations: a profile that puts less than ~66% of the
	// growth under the options' construction still fails.
	shareSD := math.Sqrt(float64(1<<15) / float64(leaky.Profile.GrowthBytes))
	t.Logf("leaky: growth %d B over %d lifecycles, %d B (%.1f%%) under the options' construction (sampling sd %.1f%%)",
		leaky.Profile.GrowthBytes, leaky.Profile.Lifecycles, through, 100*share, 100*shareSD)
	assert.GreaterOrEqual(t, share+3*shareSD, 0.80)

	a, ok := results.ProfileAgreement(leaky)
	require.True(t, ok)
	require.True(t, a.AtDumps, "the child reads its native heap at each dump")
	t.Logf("leaky: profile %.0f B/lifecycle, native heap between the dumps %.0f less promotion %.0f = %.0f, ratio %.3f "+
		"(the run's native-heap slope %.0f)", a.Profile, a.Native, a.Promoted, a.Native-a.Promoted, a.Ratio, a.Slope)
	// The profile and the native heap measure the same live heap at the same two instants, so the ratio differs from
	// 1 by the profile's sampling error. Its standard deviation is estimated from both dumps' samples
	// (schema.HeapProfile.GrowthSDBytes): most of kv-clean's live heap at a dump (stores opened, used and closed
	// within a few lifecycles) is not live at the other, so it is about sqrt(2^15 · (live at warm + live at end)),
	// ~6.7% of the growth, not the sqrt(2^15 · growth) (~5%) this test used before. Three of them: a profile that
	// misses a quarter of the growth fails. (This compared with the run's fitted slope, within three of the smaller
	// figure, until the stop-18 CI run failed at 0.819: the slope spans samples before the warm-up dump and carries
	// its own ~6.6% standard error. Seven runs here gave 0.90-1.11 at the dumps, 0.87-1.08 against the slope.)
	require.Positive(t, a.RatioSD)
	t.Logf("leaky: the ratio's sampling sd %.3f; tolerance %.3f", a.RatioSD, 3*a.RatioSD)
	assert.InDelta(t, 1, a.Ratio, 3*a.RatioSD, "profile against the native heap's growth between the dumps")
	// Negative control: the same check without jemalloc's promotion subtracted (a native heap the profile does not
	// account for, about 30% of it here) must fail.
	uncorrected := a.Profile / a.Native
	t.Logf("leaky: without the promotion's correction the ratio is %.3f", uncorrected)
	assert.Greater(t, math.Abs(1-uncorrected), 3*a.RatioSD, "the check should fail without the promotion's correction")

	fixed := res.Runs["fixed"]
	pf := growthProfile(t, dir, fixed)
	throughFixed, err := heapprof.GrowthThrough(pf, optionsConstruction)
	require.NoError(t, err)
	perFixed := float64(throughFixed) / float64(fixed.Profile.Lifecycles)
	perLeaky := float64(through) / float64(leaky.Profile.Lifecycles)
	t.Logf("under the options' construction: leaky %.0f B/lifecycle, fixed %.0f", perLeaky, perFixed)
	assert.Less(t, perFixed, 0.10*perLeaky)

	// The child's own Go heap between the same dumps (the instrument's memory) is beside it, readable by pprof.
	g, err := os.Open(filepath.Join(dir, "leaky", harness.GoGrowthFile))
	require.NoError(t, err)
	defer g.Close()
	gp, err := profile.Parse(g)
	require.NoError(t, err)
	_, err = heapprof.InuseBytes(gp)
	assert.NoError(t, err)
}

// TestProfileCalibrationNamesTheSyntheticLeak is the profiler's known answer: the calibration's synthetic model's
// growth minus its control's lies ≥ 95% on the C function that mallocs the synthetic leak, and its size per lifecycle
// is the known 64 KiB within 10%. The control alone (negative control) has none on that function.
func TestProfileCalibrationNamesTheSyntheticLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("runs calibration under the heap profiler")
	}
	sharesTheCores(t)
	// "go test" links its binary without a symbol table (-s), which leaves the cgo wrapper of the synthetic leak's C
	// function unnamed; the CLI is built as "make build" builds it (the build TestBinaryWithoutCgo shares).
	exe := buildBinary(t, "1")
	out := filepath.Join(t.TempDir(), "run")
	// 600 lifecycles: at 300 the other functions' run-to-run difference (manifest writes, LRU tables: about
	// 2 KiB/lifecycle between two runs, CI saw it) took 6.6% of the difference and failed the 95% share.
	run := exec.Command(exe, "run", "--scenario", "calibration", "--lifecycles", "600", "--profile", "--out", out,
		"--state-dir", t.TempDir()) // as profiledRun: the state the profile tests were calibrated on
	b, err := run.CombinedOutput()
	require.NoError(t, err, string(b))
	res, err := schema.Read(filepath.Join(out, "result.json"))
	require.NoError(t, err)
	require.Equal(t, schema.StatusComplete, res.Status)
	pairs := results.ProfilePairs(res)
	require.Equal(t, [][2]string{{"fixed+synthetic", "fixed"}}, pairs)
	diff, ok := results.ProfileDiff(pairs[0][0], res.Runs[pairs[0][0]], pairs[0][1], res.Runs[pairs[0][1]])
	require.True(t, ok)
	const leakFunction = "C.rocksleak_touch_alloc"
	var on float64
	for _, r := range diff.Rows {
		if r.Function == leakFunction {
			on = r.BytesPerLifecycle
		}
	}
	t.Logf("synthetic minus control: %.0f B/lifecycle, %.0f on %s (%.1f%%); top %+v", diff.TotalPerLifecycle, on,
		leakFunction, 100*on/diff.TotalPerLifecycle, diff.Rows[:min(3, len(diff.Rows))])
	assert.GreaterOrEqual(t, on/diff.TotalPerLifecycle, 0.95)
	assert.InEpsilon(t, 65536, on, 0.10)

	control, ok := results.ProfileGrowth("fixed", res.Runs["fixed"])
	require.True(t, ok)
	for _, r := range control.Rows {
		assert.NotEqual(t, leakFunction, r.Function, "the control has no synthetic leak")
	}
}
