package jvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocksleak/rocksleak/schema"
)

// The JVM engine's profile (rocksleak run --profile on a kafka-<version> model; Engine is an engine.NativeProfiler): async-profiler's nativemem mode in
// the Java child, from the end of its warm-up to its end (the child's NativeMemProfile), then jfrconv's leak view of
// the recording, weighted and attributed here (nativemem_report.go). `make jvm` lays out its parts in
// Engine.Dir/ProfilerDir (engine/jvm/child/profiler.sh).
const (
	// ProfilerDir is the folder of JVM.Dir with libasyncProfiler.so, async-profiler.jar and jfr-converter.jar.
	ProfilerDir = "profiler"
	// NativeMemIntervalBytes is async-profiler's nativemem sampling interval (nativemem=N): a malloc is recorded
	// when its bytes carry a running count past a multiple of N, so one of size s < N is recorded about s/N of
	// the time (weighted max(s, N) here) and every larger one always. Every free is recorded, whatever N. 32 KiB
	// is the Go engine's jemalloc interval (2^15); with every malloc recorded (N = 0) the Java child ran kafka-4.3.0
	// 16 times slower, most of it walking stacks.
	NativeMemIntervalBytes = 32 << 10
	// NativeMemTail is the share of the recording, at its end, whose allocations jfrconv's leak view leaves out
	// (--tail; async-profiler's default is 10%, against the bias toward allocations too young to have been freed).
	// The child stops the recording after it closed every store, so none is held for a store: 0. With the default
	// 10% and the recording stopped at the end sample, a store open through the run's last 30 lifecycles held a
	// sampled memtable block, and kafka-4.3.1 read +3.1 KiB per lifecycle in one run of 400 (+0.6 in others).
	NativeMemTail = 0.0
	// The files of a model's profile folder.
	nativeMemRecording = "nativemem.jfr"  // the recording (NativeMemProfile.RECORDING)
	nativeMemMarksFile = "nativemem.json" // the counts at start and stop (NativeMemProfile.MARKS)
	// UnfreedCollapsed and UnfreedFlameGraph are the weighted unfreed allocations by stack, collapsed (one
	// "frame;frame;... bytes" a line, outermost first) and as jfrconv's HTML flame graph.
	UnfreedCollapsed  = "unfreed.collapsed"
	UnfreedFlameGraph = "unfreed.html"
	// growthFile is the pprof file's name, as the Go engine's (harness.GrowthFile).
	growthFile = "growth.pb.gz"
)

var profilerFiles = []string{"libasyncProfiler.so", "async-profiler.jar", "jfr-converter.jar"}

// profilerPath is a file of the profiler's folder.
func (j Engine) profilerPath(name string) string { return filepath.Join(j.dir(), ProfilerDir, name) }

// NativeMemIntervalEnvVar names another nativemem sampling interval in bytes (NativeMemIntervalBytes by default).
// 0 records every malloc: exact bytes by site, where the sampled profile's are not for small allocations (the
// sampling is a running count, not random, so a small allocation made at the same point of a repeated sequence is
// sampled more or less often than its size says), at about 15 times the default's time.
const NativeMemIntervalEnvVar = "ROCKSLEAK_NATIVEMEM_INTERVAL"

// ProfileIntervalBytes is the nativemem sampling interval the child is asked for (engine.NativeProfiler):
// $ROCKSLEAK_NATIVEMEM_INTERVAL when it is a number of bytes (0: every malloc), else NativeMemIntervalBytes.
func (Engine) ProfileIntervalBytes() int64 {
	if v, err := strconv.ParseInt(os.Getenv(NativeMemIntervalEnvVar), 10, 64); err == nil && v >= 0 {
		return v
	}
	return NativeMemIntervalBytes
}

// PreflightProfile checks, before any model runs, that the profiler's parts are built (engine.NativeProfiler); the
// error wraps ErrNotBuilt and names the command that builds them.
func (j Engine) PreflightProfile() error {
	for _, f := range profilerFiles {
		if _, err := os.Stat(j.profilerPath(f)); err != nil {
			return fmt.Errorf("%w: --profile needs async-profiler's %s (make jvm lays it out in %s)",
				ErrNotBuilt, f, filepath.Join(j.dir(), ProfilerDir))
		}
	}
	return nil
}

// ProfileCommand returns a JVM child's command line (Command's, engine.NativeProfiler) that loads async-profiler as an agent at start
// (-agentpath, which starts nothing by itself: the child starts and stops the recording through
// one.profiler.AsyncProfiler) and has async-profiler.jar on its classpath.
func (j Engine) ProfileCommand(line []string) ([]string, error) {
	for i, a := range line {
		if a == "-cp" && i+1 < len(line) {
			out := append([]string{}, line[:i]...)
			out = append(out, "-agentpath:"+j.profilerPath("libasyncProfiler.so"), "-cp",
				line[i+1]+string(os.PathListSeparator)+j.profilerPath("async-profiler.jar"))
			return append(out, line[i+2:]...), nil
		}
	}
	return nil, errors.New("the JVM child's command line has no -cp")
}

// nativeMemMark is one of the child's counts at the recording's start or stop (nativemem.json).
type nativeMemMark struct {
	Lifecycles   int64 `json:"lifecycles"`
	FailedCloses int64 `json:"failed_closes"`
	NativeHeap   int64 `json:"native_heap"`
	ElapsedNs    int64 `json:"elapsed_ns"`
}

// nativeMemMarks is the child's nativemem.json.
type nativeMemMarks struct {
	IntervalBytes int64         `json:"interval_bytes"`
	Start         nativeMemMark `json:"start"`
	Stop          nativeMemMark `json:"stop"`
}

// converterTimeout bounds each jfrconv run (a recording of 200 lifecycles of kafka-4.3.0 is ~90 MB, converted in
// about 6 s).
const converterTimeout = 10 * time.Minute

// convert runs jfrconv with args, its output kept for the error.
func (j Engine) convert(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), converterTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, j.java(), append([]string{"-jar", j.profilerPath("jfr-converter.jar")}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("jfrconv %s: %v: %s", strings.Join(args, " "), err, lastBytes(out, 600))
	}
	return nil
}

// CollectProfile (engine.NativeProfiler) turns a JVM child's recording into its HeapProfile and writes, in dir, growth.pb.gz (pprof),
// unfreed.collapsed and unfreed.html (the flame graph). The recording and its marks are removed once read (a
// recording is ~0.4 MB per lifecycle of kafka-4.3.0). samples are the child's, to find the lifecycle count at the
// leak view's cut.
func (j Engine) CollectProfile(dir, model string, samples []schema.Sample) *schema.HeapProfile {
	hp := &schema.HeapProfile{Profiler: schema.ProfilerNativeMem, TailFraction: NativeMemTail}
	b, err := os.ReadFile(filepath.Join(dir, nativeMemMarksFile))
	if err != nil {
		hp.Error = "no nativemem recording: the run ended before its warm-up or before the recording stopped (" + err.Error() + ")"
		return hp
	}
	var m nativeMemMarks
	if err := json.Unmarshal(b, &m); err != nil {
		hp.Error = fmt.Sprintf("%s: %v", nativeMemMarksFile, err)
		return hp
	}
	rec := filepath.Join(dir, nativeMemRecording)
	defer os.Remove(rec)
	defer os.Remove(filepath.Join(dir, nativeMemMarksFile))
	hp.SamplingIntervalBytes = m.IntervalBytes
	hp.WarmLifecycles, hp.StopLifecycles = m.Start.Lifecycles, m.Stop.Lifecycles
	cut := m.Start.ElapsedNs + int64((1-NativeMemTail)*float64(m.Stop.ElapsedNs-m.Start.ElapsedNs))
	hp.EndLifecycles = lifecyclesAt(samples, cut, m.Start, m.Stop)
	hp.Lifecycles = hp.EndLifecycles - hp.WarmLifecycles
	hp.FailedCloses = m.Stop.FailedCloses - m.Start.FailedCloses
	if hp.Lifecycles <= 0 {
		hp.Error = fmt.Sprintf("no lifecycle between the recording's start and its cut (%d, %d)", hp.WarmLifecycles, hp.EndLifecycles)
		return hp
	}
	tail := fmt.Sprintf("%g%%", NativeMemTail*100)
	common := []string{"--nativemem", "--leak", "--tail", tail, "--lines", "--dot", "-o", "collapsed"}
	bytesFile, countsFile := filepath.Join(dir, "leak-bytes.collapsed"), filepath.Join(dir, "leak-counts.collapsed")
	defer os.Remove(bytesFile)
	defer os.Remove(countsFile)
	// The two views at once (one JVM each; most of a profiled run's time after its child on two cores).
	var countsErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		countsErr = j.convert(append(append([]string{}, common...), rec, countsFile)...)
	}()
	bytesErr := j.convert(append(append([]string{}, common...), "--total", rec, bytesFile)...)
	wg.Wait()
	if err := errors.Join(bytesErr, countsErr); err != nil {
		hp.Error = err.Error()
		return hp
	}
	stacks, err := readLeakViews(bytesFile, countsFile, m.IntervalBytes)
	if err != nil {
		hp.Error = err.Error()
		return hp
	}
	if err := fillNativeMemProfile(hp, dir, model, stacks); err != nil {
		hp.Error = err.Error()
		return hp
	}
	html := filepath.Join(dir, UnfreedFlameGraph)
	title := fmt.Sprintf("%s: native allocations not freed, lifecycles %d to %d (async-profiler nativemem)",
		model, hp.WarmLifecycles, hp.EndLifecycles)
	if err := j.convert("--title", title, "--reverse", filepath.Join(dir, UnfreedCollapsed), html); err != nil {
		hp.Error = "the flame graph: " + err.Error()
		return hp
	}
	hp.FlameGraph = filepath.ToSlash(filepath.Join(model, UnfreedFlameGraph))
	return hp
}

// lifecyclesAt is the lifecycle count at the child's elapsed time t, interpolated between the samples around it
// (the marks at start and stop bound it).
func lifecyclesAt(samples []schema.Sample, t int64, start, stop nativeMemMark) int64 {
	lo := start
	hi := stop
	for _, s := range samples {
		if s.ElapsedNs <= t && s.ElapsedNs >= lo.ElapsedNs {
			lo = nativeMemMark{Lifecycles: s.Lifecycles, ElapsedNs: s.ElapsedNs}
		}
		if s.ElapsedNs >= t && s.ElapsedNs <= hi.ElapsedNs {
			hi = nativeMemMark{Lifecycles: s.Lifecycles, ElapsedNs: s.ElapsedNs}
		}
	}
	if hi.ElapsedNs <= lo.ElapsedNs {
		return lo.Lifecycles
	}
	f := float64(t-lo.ElapsedNs) / float64(hi.ElapsedNs-lo.ElapsedNs)
	return lo.Lifecycles + int64(f*float64(hi.Lifecycles-lo.Lifecycles)+0.5)
}

// lastBytes is the end of a command's output, at most n bytes, for an error.
func lastBytes(out []byte, n int) string {
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.TrimSpace(string(out))
}
