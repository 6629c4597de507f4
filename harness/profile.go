package harness

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"time"

	"github.com/rocksleak/rocksleak/heapprof"
	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
)

// Profile asks Run to profile every model's C heap by allocation stack: each child runs under jemalloc (preloaded)
// with heap profiling on (measure.HeapProfileMallocConf), dumps its sampled live heap when its warm-up is over
// (WarmupFraction of its stop condition), every Every lifecycles after that if Every > 0, and at its end; the
// parent turns the first and the last dump into the growth by allocation stack, symbolized against the binary and
// the libraries the child mapped while they are on disk, and writes it to Dir/<model>/growth.pb.gz.
type Profile struct {
	// Dir is an absolute directory (no ','); each model's dumps and growth profile go to Dir/<model>/.
	Dir string
	// Every, when > 0, adds a dump every Every lifecycles between the warm-up dump and the end.
	Every int64
}

// WarmupFraction is the share of a model's stop condition (lifecycles, or wall time for a duration-limited run)
// after which its child takes the warm-up dump: the growth is measured over the remaining 80%. The fits' own
// warm-up cut is decided after the run from all the samples (at most half of them), so the child cannot use it.
const WarmupFraction = 0.2

// GrowthFile is the name of a model's growth profile in its folder of the run directory.
const GrowthFile = "growth.pb.gz"

// GoGrowthFile is the name of a model's Go heap growth profile in its folder of the run directory: the child's own
// (the instrument's) Go heap, dumped by runtime/pprof beside each C heap dump after a garbage collection, the last
// dump minus the first (heapprof.GoHeapGrowth); read it with
// go tool pprof -top -sample_index=inuse_space <model>/go-growth.pb.gz.
const GoGrowthFile = "go-growth.pb.gz"

// GoMemProfileRate is the Go heap's sampling interval in a profiled child (runtime.MemProfileRate; Go's default is
// 512 KiB): an allocation site that grows by G bytes is estimated within about sqrt(4096/G) (2% at 10 MiB).
const GoMemProfileRate = 4096

// ProfileJob is the profiling part of a child's Job.
type ProfileJob struct {
	Dir string `json:"dir"`
	// WarmLifecycles (lifecycle-limited runs) or WarmAfterNs (duration-limited runs) is when the warm-up dump is
	// taken: at the first sampling point where the lifecycle count or the elapsed time reaches it.
	WarmLifecycles int64 `json:"warm_lifecycles,omitempty"`
	WarmAfterNs    int64 `json:"warm_after_ns,omitempty"`
	Every          int64 `json:"every,omitempty"`
	// IntervalBytes is async-profiler's nativemem sampling interval, for the JVM child (NativeMemIntervalBytes).
	IntervalBytes int64 `json:"interval_bytes,omitempty"`
}

func newProfileJob(p *Profile, sc scenarios.Scenario, model string) ProfileJob {
	j := ProfileJob{Dir: filepath.Join(p.Dir, model), Every: p.Every}
	if sc.Lifecycles > 0 {
		j.WarmLifecycles = max(1, int64(float64(sc.Lifecycles)*WarmupFraction))
	} else {
		j.WarmAfterNs = int64(float64(sc.Duration) * WarmupFraction)
	}
	return j
}

// profileEnv prepares a model's profile folder and returns the environment its child needs.
func profileEnv(j ProfileJob) ([]string, error) {
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return nil, err
	}
	conf, err := measure.HeapProfileMallocConf(j.Dir)
	if err != nil {
		return nil, err
	}
	lib, err := JemallocPath()
	if err != nil {
		return nil, err
	}
	return []string{"LD_PRELOAD=" + lib, "MALLOC_CONF=" + conf}, nil
}

// dumpName is the file name of a child's n-th heap dump, taken at lc lifecycles and fc failed closes, with the
// native heap nh bytes (measure.Memory.NativeHeap, read just before the dump; schema.Unavailable when not read).
func dumpName(n int, lc, fc, nh int64) string {
	return fmt.Sprintf("dump-%03d-lc%d-fc%d-nh%d.heap", n, lc, fc, nh)
}

// Profiler takes a child's heap dumps.
type Profiler struct {
	job ProfileJob
	// nativeHeap reads the child's native heap (jemalloc's stats.allocated) at each dump, so that the parent can
	// compare the profile's growth with the native heap's over the same two instants; nil leaves it unread.
	nativeHeap func() (int64, error)
	begin      time.Time
	n          int
	warm       bool
	lastLC     int64
}

// NewProfiler takes the dumps job asks for, its clock started at begin; nativeHeap reads the native heap at each
// dump (nil leaves it unread).
func NewProfiler(job ProfileJob, begin time.Time, nativeHeap func() (int64, error)) *Profiler {
	return &Profiler{job: job, begin: begin, nativeHeap: nativeHeap}
}

func (p *Profiler) dump(lc, fc int64) error {
	nh := int64(schema.Unavailable)
	if p.nativeHeap != nil {
		v, err := p.nativeHeap()
		if err != nil {
			return fmt.Errorf("heap profile: reading the native heap: %w", err)
		}
		nh = v
	}
	path := filepath.Join(p.job.Dir, dumpName(p.n, lc, fc, nh))
	if err := measure.DumpHeapProfile(path); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := dumpGoHeap(filepath.Join(p.job.Dir, goDumpName(p.n))); err != nil {
		return fmt.Errorf("heap profile: the Go heap: %w", err)
	}
	p.n++
	p.lastLC = lc
	return nil
}

// After is called at every sampling point with the lifecycle and failed-close counts.
func (p *Profiler) After(lc, fc int64) error {
	if !p.warm {
		reached := (p.job.WarmLifecycles > 0 && lc >= p.job.WarmLifecycles) ||
			(p.job.WarmAfterNs > 0 && time.Since(p.begin) >= time.Duration(p.job.WarmAfterNs))
		if !reached {
			return nil
		}
		p.warm = true
		return p.dump(lc, fc)
	}
	if p.job.Every > 0 && lc-p.lastLC >= p.job.Every {
		return p.dump(lc, fc)
	}
	return nil
}

// End takes the last dump (when the warm-up dump was taken and the count moved since the last one).
func (p *Profiler) End(lc, fc int64) error {
	if !p.warm || lc == p.lastLC {
		return nil
	}
	return p.dump(lc, fc)
}

// goDumpName is the file name of the Go heap profile taken with a child's n-th heap dump.
func goDumpName(n int) string { return fmt.Sprintf("go-heap-%03d.pb.gz", n) }

// dumpGoHeap writes the calling process's Go heap profile to path, after a garbage collection so that its in-use
// figures are those of now (the runtime's heap profile reports the state as of the last completed collection).
func dumpGoHeap(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
}

// writeGoGrowth writes dir/go-growth.pb.gz from the Go heap profiles taken with the dumps first and last.
func writeGoGrowth(dir string, first, last int) error {
	p, err := heapprof.GoHeapGrowth(filepath.Join(dir, goDumpName(first)), filepath.Join(dir, goDumpName(last)))
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, GoGrowthFile))
	if err != nil {
		return err
	}
	return errors.Join(p.Write(f), f.Close())
}

type dumpFile struct {
	path string
	n    int
	lc   int64
	fc   int64
	nh   int64
}

func listDumps(dir string) ([]dumpFile, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "dump-*-lc*-fc*-nh*.heap"))
	if err != nil {
		return nil, err
	}
	var out []dumpFile
	for _, p := range paths {
		var d dumpFile
		if _, err := fmt.Sscanf(filepath.Base(p), "dump-%d-lc%d-fc%d-nh%d.heap", &d.n, &d.lc, &d.fc, &d.nh); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		d.path = p
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].n < out[j].n })
	return out, nil
}

// intervalTop is how many functions an interval of HeapProfile.Intervals lists.
const intervalTop = 5

// collectProfile turns a child's dumps into its HeapProfile and writes dir/growth.pb.gz. model names the folder
// in HeapProfile.File. It runs in the parent right after the child ended, while the binaries it mapped are on disk.
func collectProfile(dir, model string) *schema.HeapProfile {
	hp := &schema.HeapProfile{}
	dumps, err := listDumps(dir)
	if err != nil {
		hp.Error = err.Error()
		return hp
	}
	if len(dumps) < 2 {
		hp.Error = fmt.Sprintf("%d heap dump(s): the run ended before the warm-up dump or right after it", len(dumps))
		return hp
	}
	parsed := make([]*heapprof.Dump, len(dumps))
	for i, d := range dumps {
		if parsed[i], err = heapprof.ParseFile(d.path); err != nil {
			hp.Error = err.Error()
			return hp
		}
	}
	sym := heapprof.NewSymbolizer()
	first, last := 0, len(dumps)-1
	p, err := heapprof.Growth(parsed[first], parsed[last], sym)
	if err != nil {
		hp.Error = err.Error()
		return hp
	}
	hp.SamplingIntervalBytes = parsed[last].SamplePeriod
	hp.WarmLifecycles, hp.EndLifecycles = dumps[first].lc, dumps[last].lc
	hp.Lifecycles = hp.EndLifecycles - hp.WarmLifecycles
	hp.FailedCloses = dumps[last].fc - dumps[first].fc
	if hp.Lifecycles <= 0 {
		hp.Error = fmt.Sprintf("no lifecycle between the dumps (%d, %d)", hp.WarmLifecycles, hp.EndLifecycles)
		return hp
	}
	t, err := heapprof.Attribute(p, hp.Lifecycles)
	if err != nil {
		hp.Error = err.Error()
		return hp
	}
	hp.GrowthBytes = int64(t.TotalBytes) // exact: Attribute sums whole bytes
	hp.PromotedBytes = parsed[last].PromotedBytes(heapprof.LargeMinClass) - parsed[first].PromotedBytes(heapprof.LargeMinClass)
	hp.GrowthSDBytes = math.Sqrt(parsed[first].InuseVariance() + parsed[last].InuseVariance())
	if dumps[first].nh >= 0 && dumps[last].nh >= 0 {
		g := dumps[last].nh - dumps[first].nh
		hp.NativeHeapGrowthBytes = &g
	}
	hp.Functions = functions(t, len(t.Rows))
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		hp.Error = err.Error()
		return hp
	}
	if err := os.WriteFile(filepath.Join(dir, GrowthFile), buf.Bytes(), 0o644); err != nil {
		hp.Error = err.Error()
		return hp
	}
	hp.File = filepath.ToSlash(filepath.Join(model, GrowthFile))
	if err := writeGoGrowth(dir, dumps[first].n, dumps[last].n); err != nil {
		hp.Error = "the Go heap's growth: " + err.Error()
	}
	if len(dumps) > 2 {
		var err error
		if hp.Intervals, err = profileIntervals(dumps, parsed, sym); err != nil {
			hp.Error = "intervals: " + err.Error()
		}
	}
	return hp
}

// profileIntervals is the growth between each two consecutive dumps, with
// its top functions; the error joins those of the intervals left out.
func profileIntervals(dumps []dumpFile, parsed []*heapprof.Dump, sym *heapprof.Symbolizer) ([]schema.ProfileInterval, error) {
	var out []schema.ProfileInterval
	var errs []error
	for i := 1; i < len(dumps); i++ {
		q, err := heapprof.Growth(parsed[i-1], parsed[i], sym)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ti, err := heapprof.Attribute(q, max(1, dumps[i].lc-dumps[i-1].lc))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, schema.ProfileInterval{FromLifecycles: dumps[i-1].lc,
			ToLifecycles: dumps[i].lc, GrowthBytes: int64(ti.TotalBytes), Functions: functions(ti, intervalTop)})
	}
	return out, errors.Join(errs...)
}

func functions(t schema.ProfileTable, n int) []schema.ProfileFunction {
	out := make([]schema.ProfileFunction, 0, min(n, len(t.Rows)))
	for _, r := range t.Rows[:min(n, len(t.Rows))] {
		if r.Bytes != 0 {
			out = append(out, schema.ProfileFunction{Function: r.Function, Bytes: int64(r.Bytes)}) // whole bytes: exact
		}
	}
	return out
}
