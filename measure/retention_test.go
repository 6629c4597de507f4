package measure

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/measure/internal/testalloc"
	"github.com/rocksleak/rocksleak/spec"
)

// retentionControlEnv names the control a re-executed test binary runs (TestRetentionControlChild).
const retentionControlEnv = "ROCKSLEAK_MEASURE_RETENTION_CONTROL"

// The controls' sizes: 8 threads × 8 MiB fragmented (1 block in 64 kept), and a 32 MiB leak in 1 KiB blocks.
const (
	fragThreads   = 8
	fragPerThread = 8 * mib
	fragKeepEvery = 64
	leakBytes     = 32 * mib
	leakBlock     = 1 << 10
	fragSlack     = 8 * mib
)

// TestRetentionControls runs the retention probe's two controls, each in a fresh process (a re-execution of this
// test binary), under glibc and under jemalloc (preloaded):
//   - leak (positive control): 32 MiB malloc'd in 1 KiB blocks and kept. The probe must not release it: RSS after
//     the trim or purge still holds at least 90% of it above the baseline, and the probe releases less than 10% of it.
//   - fragment (retention control): 8 threads alive at once each allocate 8 MiB in blocks of 16 B–4 KiB and free all
//     but one block in 64 and their last, which pins the top of their heaps. The freed memory stays resident as the
//     allocator's free memory, and the probe must give at least half of it back (Released), and have seen at least
//     half of it as the allocator's free memory before.
//
// The children log their figures (go test -v -run TestRetentionControls ./measure).
func TestRetentionControls(t *testing.T) {
	if os.Getenv(retentionControlEnv) != "" {
		t.Skip("in a control's child")
	}
	allocs := []spec.Allocator{spec.AllocatorGlibc, spec.AllocatorJemalloc}
	for _, a := range allocs {
		for _, control := range []string{"leak", "fragment"} {
			t.Run(string(a)+"/"+control, func(t *testing.T) {
				env := withoutPreload(os.Environ())
				if a == spec.AllocatorJemalloc {
					if _, err := os.Stat(jemallocPath); err != nil {
						t.Skipf("jemalloc not installed (%v); install libjemalloc2 to run this control", err)
					}
					env = append(env, "LD_PRELOAD="+jemallocPath)
				}
				cmd := exec.Command(os.Args[0], "-test.run=^TestRetentionControlChild$", "-test.v", "-test.count=1")
				cmd.Env = append(env, retentionControlEnv+"="+control)
				out, err := cmd.CombinedOutput()
				for _, line := range strings.Split(string(out), "\n") {
					if strings.Contains(line, "retention control") {
						t.Log(strings.TrimSpace(line))
					}
				}
				require.NoError(t, err, "child output:\n%s", out)
				assert.Contains(t, string(out), "--- PASS: TestRetentionControlChild", "child output:\n%s", out)
			})
		}
	}
}

func withoutPreload(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "LD_PRELOAD=") {
			out = append(out, e)
		}
	}
	return out
}

// TestRetentionControlChild is one control of TestRetentionControls, run in its own process.
func TestRetentionControlChild(t *testing.T) {
	control := os.Getenv(retentionControlEnv)
	if control == "" {
		t.Skip("run by TestRetentionControls")
	}
	s := newSelfSampler(t)
	want := spec.AllocatorGlibc
	if strings.Contains(os.Getenv("LD_PRELOAD"), "jemalloc") {
		want = spec.AllocatorJemalloc
	}
	require.Equal(t, want, s.Allocator())
	// A first probe leaves the process without retention of its own start-up.
	_, err := s.ProbeRetention()
	require.NoError(t, err)
	base := read(t, s)

	switch control {
	case "leak":
		for range leakBytes / leakBlock {
			testalloc.Leak(leakBlock)
		}
		r, err := s.ProbeRetention()
		require.NoError(t, err)
		logRetention(t, control, r, base, leakBytes, 0)
		assert.GreaterOrEqual(t, r.RSSAfter-base.RSS, int64(leakBytes)*9/10, "the leak stays resident")
		assert.Less(t, r.Released, int64(leakBytes)/10, "the probe releases almost none of the leak")
		assert.GreaterOrEqual(t, r.NativeHeapAfter-base.NativeHeap, int64(leakBytes)*99/100, "the leak is in use")
	case "fragment":
		f, err := testalloc.Fragment(fragThreads, fragPerThread, fragKeepEvery)
		require.NoError(t, err)
		t.Cleanup(f.Release)
		freed := f.Allocated - f.Kept
		r, err := s.ProbeRetention()
		require.NoError(t, err)
		logRetention(t, control, r, base, f.Allocated, f.Kept)
		assert.InDelta(t, r.NativeHeapBefore, r.NativeHeapAfter, float64(mib), "the probe frees nothing in use")
		if r.Allocator == spec.AllocatorGlibc {
			// glibc keeps the freed chunks of a heap whose top is pinned, resident until malloc_trim; after it RSS
			// is back to the baseline plus the kept blocks, within the threads' cached stacks.
			assert.Less(t, r.RSSAfter-base.RSS, f.Kept+fragSlack, "nothing freed stays resident after the trim")
			assert.GreaterOrEqual(t, r.Released, freed/2, "the freed memory glibc held comes back on trim")
			assert.GreaterOrEqual(t, r.AllocatorFreeBefore, freed/2, "glibc counted it free")
		} else {
			// jemalloc returns most freed pages by itself as they decay; what it still held as dirty pages comes back
			// on the purge, and RSS falls by about what stats.resident does. A kept block pins its whole slab (8–28
			// KiB for these sizes), which no purge releases: most, not all, of the freed memory is gone after it.
			assert.Less(t, r.RSSAfter-base.RSS, freed/4, "most of the freed memory is not resident after the purge")
			drop := r.ResidentBefore - r.ResidentAfter
			assert.Positive(t, drop, "the purge released dirty pages")
			assert.Less(t, r.AllocatorFreeAfter, r.AllocatorFreeBefore, "resident beyond allocated falls")
			assert.GreaterOrEqual(t, r.Released, drop/2, "RSS falls with stats.resident")
		}
	default:
		t.Fatalf("unknown control %q", control)
	}
}

func logRetention(t *testing.T, control string, r Retention, base Memory, allocated, kept int64) {
	t.Helper()
	t.Logf("retention control %s@%s: baseline rss %d; allocated %d kept %d; %s: rss_before %d rss_after %d released %d "+
		"allocator_free_before %d allocator_free_after %d native_heap_before %d native_heap_after %d "+
		"keepcost %d je_resident %d->%d je_retained %d->%d took %d ns",
		control, r.Allocator, base.RSS, allocated, kept, r.Action, r.RSSBefore, r.RSSAfter, r.Released,
		r.AllocatorFreeBefore, r.AllocatorFreeAfter, r.NativeHeapBefore, r.NativeHeapAfter,
		r.TopReleasableBefore, r.ResidentBefore, r.ResidentAfter, r.RetainedBefore, r.RetainedAfter, r.DurationNs)
}

// TestProbeRetentionOnlyForTheCallingProcess: a sampler of another process cannot probe its allocator.
func TestProbeRetentionOnlyForTheCallingProcess(t *testing.T) {
	s, err := NewSampler(WithPID(os.Getppid()))
	require.NoError(t, err)
	defer s.Close()
	_, err = s.ProbeRetention()
	assert.ErrorContains(t, err, "not the calling process")
}
