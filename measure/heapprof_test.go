package measure

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/heapprof"
	"github.com/rocksleak/rocksleak/measure/internal/testalloc"
	"github.com/rocksleak/rocksleak/spec"
)

const (
	// heapProfKeepEnv, when set, names a directory to which the known-answer test copies its growth.pb.gz.
	heapProfKeepEnv = "ROCKSLEAK_HEAPPROF_KEEP"

	knownLeakBytes  = 2048 // per iteration, an exact jemalloc size class; 200 MiB in all: sd ≈ sqrt(32 KiB/200 MiB) = 1.3%
	knownChurnBytes = 4096 // allocated and freed per iteration
	warmupIters     = 20000
	measuredIters   = 100000
)

// buildHeapProfChild builds testdata/heapprofchild (with its symbol table, unlike the test binary) once per test.
func buildHeapProfChild(t *testing.T) string {
	exe := filepath.Join(t.TempDir(), "heapprofchild")
	out, err := exec.Command("go", "build", "-o", exe, "./testdata/heapprofchild").CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	return exe
}

// runHeapProfChild runs the child under jemalloc, profiled when conf is not "", and returns its measured loop's
// iterations per second.
func runHeapProfChild(t *testing.T, exe, mode, dir, conf string) float64 {
	cmd := exec.Command(exe, mode, dir, strconv.Itoa(warmupIters), strconv.Itoa(measuredIters),
		strconv.Itoa(knownLeakBytes), strconv.Itoa(knownChurnBytes))
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+jemallocPath)
	if conf != "" {
		cmd.Env = append(cmd.Env, "MALLOC_CONF="+conf)
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child output:\n%s", out)
	b, err := os.ReadFile(filepath.Join(dir, "rate"))
	require.NoError(t, err)
	rate, err := strconv.ParseFloat(string(b), 64)
	require.NoError(t, err)
	return rate
}

// growthOf parses the child's two dumps and returns their growth profile, written to dir/growth.pb.gz.
func growthOf(t *testing.T, dir string) *profile.Profile {
	warm, err := heapprof.ParseFile(filepath.Join(dir, "warm.heap"))
	require.NoError(t, err)
	end, err := heapprof.ParseFile(filepath.Join(dir, "end.heap"))
	require.NoError(t, err)
	require.Equal(t, int64(1)<<HeapProfileLgSample, end.SamplePeriod)
	p, err := heapprof.Growth(warm, end, heapprof.NewSymbolizer())
	require.NoError(t, err)
	f, err := os.Create(filepath.Join(dir, "growth.pb.gz"))
	require.NoError(t, err)
	require.NoError(t, p.Write(f))
	require.NoError(t, f.Close())
	return p
}

// TestHeapProfileKnownAnswer runs a child that leaks knownLeakBytes per iteration from a C function of known name,
// under jemalloc with heap profiling, and checks that the growth between the dump after warm-up and the dump at the
// end lands on that function (≥ 95%) and adds up to the known bytes (within 10%). The negative control runs the same
// allocation traffic without the leak: its growth is near zero.
func TestHeapProfileKnownAnswer(t *testing.T) {
	if _, err := os.Stat(jemallocPath); err != nil {
		t.Skipf("jemalloc not installed (%v); install libjemalloc2 to run this test", err)
	}
	exe := buildHeapProfChild(t)
	known := float64(knownLeakBytes * measuredIters)

	t.Run("leak", func(t *testing.T) {
		dir := t.TempDir()
		conf, err := HeapProfileMallocConf(dir)
		require.NoError(t, err)
		rate := runHeapProfChild(t, exe, "leak", dir, conf)
		g := growthOf(t, dir)
		tab, err := heapprof.Attribute(g, measuredIters)
		require.NoError(t, err)
		require.NotEmpty(t, tab.Rows)
		t.Logf("profiled: %.0f iterations/s; growth %.0f bytes (known %.0f); rows: %+v; comments: %q", rate, tab.TotalBytes, known, tab.Rows, g.Comments)
		assert.Equal(t, testalloc.SyntheticLeakFunction, tab.Rows[0].Function)
		assert.GreaterOrEqual(t, tab.Rows[0].Share, 0.95)
		assert.InEpsilon(t, known, float64(tab.TotalBytes), 0.10)
		assert.InEpsilon(t, float64(knownLeakBytes), tab.Rows[0].BytesPerLifecycle, 0.10)
		// The profile's stacks start at the allocating function (the allocator's frames are dropped), then cgo's
		// wrapper, named for the C function it calls.
		var frames []string
		for _, l := range g.Sample[0].Location[:2] {
			require.NotEmpty(t, l.Line, "%#x unsymbolized", l.Address)
			frames = append(frames, l.Line[0].Function.Name)
		}
		assert.Equal(t, []string{testalloc.SyntheticLeakFunction, "C." + testalloc.SyntheticLeakFunction}, frames)
		if keep := os.Getenv(heapProfKeepEnv); keep != "" {
			for _, name := range []string{"growth.pb.gz", "warm.heap", "end.heap"} {
				b, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(keep, name), b, 0o644))
			}
		}
	})

	t.Run("churn", func(t *testing.T) {
		dir := t.TempDir()
		conf, err := HeapProfileMallocConf(dir)
		require.NoError(t, err)
		runHeapProfChild(t, exe, "churn", dir, conf)
		g := growthOf(t, dir)
		tab, err := heapprof.Attribute(g, measuredIters)
		require.NoError(t, err)
		t.Logf("churn growth %.0f bytes; rows: %+v", tab.TotalBytes, tab.Rows)
		assert.Less(t, math.Abs(float64(tab.TotalBytes)), 0.02*known, "allocate-and-free must show no growth")
		// prof_accum is off (see HeapProfileMallocConf): no allocation counts are kept, only the live heap.
		var allocated int64
		for _, s := range g.Sample {
			allocated += s.Value[1]
		}
		require.Equal(t, heapprof.SampleAllocSpace, g.SampleType[1].Type)
		assert.Zero(t, allocated)
		for _, r := range tab.Rows {
			assert.NotEqual(t, testalloc.SyntheticLeakFunction, r.Function)
		}
	})
}

// TestHeapProfileCost compares the child's loop rate under jemalloc unprofiled and profiled at HeapProfileLgSample.
// It only reports: a rate on a shared machine is no assertion.
func TestHeapProfileCost(t *testing.T) {
	if _, err := os.Stat(jemallocPath); err != nil {
		t.Skipf("jemalloc not installed (%v)", err)
	}
	exe := buildHeapProfChild(t)
	var plain, prof []float64
	for range 3 {
		plain = append(plain, runHeapProfChild(t, exe, "churn", t.TempDir(), ""))
		dir := t.TempDir()
		conf, err := HeapProfileMallocConf(dir)
		require.NoError(t, err)
		prof = append(prof, runHeapProfChild(t, exe, "churn", dir, conf))
	}
	mean := func(xs []float64) float64 {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	t.Logf("lg_prof_sample %d, malloc/free loop (worst case): unprofiled %.3g it/s %v, profiled %.3g it/s %v: %.2f× slower",
		HeapProfileLgSample, mean(plain), plain, mean(prof), prof, mean(plain)/mean(prof))
}

// TestDumpHeapProfileUnavailable checks the error when the allocator is not jemalloc (this test process runs on glibc
// unless preloaded).
func TestDumpHeapProfileUnavailable(t *testing.T) {
	if processAllocator() == spec.AllocatorJemalloc {
		t.Skip("jemalloc preloaded")
	}
	err := DumpHeapProfile(filepath.Join(t.TempDir(), "x.heap"))
	require.ErrorIs(t, err, ErrHeapProfileUnavailable)
	assert.Contains(t, err.Error(), "not jemalloc")
}

// TestDumpHeapProfileUnderJemalloc checks DumpHeapProfile in a process that runs on jemalloc: profiling off is an
// ErrHeapProfileUnavailable naming opt.prof, profiling on writes a dump that parses.
func TestDumpHeapProfileUnderJemalloc(t *testing.T) {
	if _, err := os.Stat(jemallocPath); err != nil {
		t.Skipf("jemalloc not installed (%v)", err)
	}
	exe := buildHeapProfChild(t)
	probe := func(dir, conf string) string {
		cmd := exec.Command(exe, "probe", dir)
		cmd.Env = append(os.Environ(), "LD_PRELOAD="+jemallocPath, "MALLOC_CONF="+conf)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	dir := t.TempDir()
	assert.Contains(t, probe(dir, ""), "heap profiling is off (opt.prof false)")
	assert.NoFileExists(t, filepath.Join(dir, "probe.heap"))

	conf, err := HeapProfileMallocConf(dir)
	require.NoError(t, err)
	assert.Equal(t, "<nil>\n", probe(dir, conf))
	d, err := heapprof.ParseFile(filepath.Join(dir, "probe.heap"))
	require.NoError(t, err)
	assert.Equal(t, int64(1)<<HeapProfileLgSample, d.SamplePeriod)
	assert.NotEmpty(t, d.Mappings)

	missing := filepath.Join(dir, "no", "such", "dir")
	require.NoError(t, os.MkdirAll(filepath.Dir(missing), 0o755))
	assert.Contains(t, probe(missing, conf), "prof.dump")
}

func TestHeapProfileMallocConf(t *testing.T) {
	conf, err := HeapProfileMallocConf("/run/dir/")
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("prof:true,prof_active:true,lg_prof_sample:%d,prof_accum:false,prof_prefix:/run/dir/jeprof,"+
		"prof_final:false,prof_leak:false,prof_gdump:false,lg_prof_interval:-1", HeapProfileLgSample), conf)
	for _, bad := range []string{"rel/dir", "/a,b"} {
		_, err := HeapProfileMallocConf(bad)
		assert.Error(t, err, bad)
	}
}
