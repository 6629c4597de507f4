package goengine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/workload"
)

// The work of one benchmarked lifecycle is what one task step of the
// kafka-20616 scenario does to one store: 50 records of 128 B, and the offsets
// of 4 changelog partitions plus the position at the commit.
const (
	benchRecords    = 50
	benchValueBytes = 128
	benchPartitions = 4
	// benchWarmup lifecycles run once per process before the first measured
	// one: RocksDB's statics, its background threads and their malloc arenas
	// settle in the first cycles (measurement.md), and that growth must not be
	// charged to whichever variant happens to run first.
	benchWarmup = 100
)

// benchWork is the fixed input of every benchmarked lifecycle, built once so
// that no variant pays for generating it.
type benchWork struct {
	keys, values [][]byte
	offsets      map[string]int64 // for Store.Commit

	// The same bytes for the bare loop, which writes them itself: offsets-CF
	// keys and 8-byte big-endian values, and the encoded position.
	offsetKeys, offsetValues [][]byte
	position                 []byte
	statusOpen, statusClosed []byte
}

func newBenchWork() *benchWork {
	w := &benchWork{offsets: map[string]int64{}}
	h := uint64(20616)
	for i := range benchRecords {
		w.keys = append(w.keys, []byte(workload.Key(i)))
		v := make([]byte, benchValueBytes)
		for j := 0; j < len(v); j += 8 {
			h = workload.SplitMix64(h)
			binary.LittleEndian.PutUint64(v[j:], h)
		}
		w.values = append(w.values, v)
	}
	for p := range benchPartitions {
		k := lifecycle.ChangelogKey("app-store-0-changelog", p)
		w.offsets[k] = benchRecords / benchPartitions
	}
	names := make([]string, 0, len(w.offsets))
	for k := range w.offsets {
		names = append(names, k)
	}
	sort.Strings(names)
	// The position as lifecycle encodes it: version 0, entry count, then per
	// entry a length-prefixed key and an 8-byte offset.
	w.position = binary.BigEndian.AppendUint32([]byte{0}, uint32(len(names)))
	for _, k := range names {
		w.offsetKeys = append(w.offsetKeys, []byte(k))
		w.offsetValues = append(w.offsetValues, binary.BigEndian.AppendUint64(nil, uint64(w.offsets[k])))
		w.position = binary.BigEndian.AppendUint16(w.position, uint16(len(k)))
		w.position = append(w.position, k...)
		w.position = binary.BigEndian.AppendUint64(w.position, uint64(w.offsets[k]))
	}
	w.statusOpen = binary.BigEndian.AppendUint64(nil, uint64(lifecycle.StatusOpen))
	w.statusClosed = binary.BigEndian.AppendUint64(nil, uint64(lifecycle.StatusClosed))
	return w
}

// benchRoot is a fresh directory for one benchmark's stores: under /dev/shm,
// the harness's default state root, when it is writable, else b.TempDir().
func benchRoot(b *testing.B) string {
	if harness.DefaultStateRoot() == "/dev/shm" {
		if dir, err := os.MkdirTemp("/dev/shm", "rocksleak-bench-"); err == nil {
			b.Cleanup(func() { _ = os.RemoveAll(dir) })
			return dir
		}
	}
	return b.TempDir()
}

// bareLifecycle is one store lifecycle written straight against grocksdb:
// the RocksDB work of a fixed-model lifecycle with nothing of rocksleak
// around it (no ledger, no accessor, no sampling). Its natives are created and
// destroyed in the order lifecycle.Store creates and releases them.
func bareLifecycle(path string, w *benchWork) error {
	opts := grocksdb.NewDefaultOptions()
	opts.SetCreateIfMissing(true)
	opts.SetCreateIfMissingColumnFamilies(true)
	opts.SetAtomicFlush(true)
	opts.SetWriteBufferSize(16 << 20)
	opts.SetMaxWriteBufferNumber(3)
	opts.SetCompression(grocksdb.NoCompression)
	tbl := grocksdb.NewDefaultBlockBasedTableOptions()
	cache := grocksdb.NewLRUCache(50 << 20)
	tbl.SetBlockCache(cache)
	tbl.SetFilterPolicy(grocksdb.NewBloomFilter(10))
	opts.SetBlockBasedTableFactory(tbl)
	wo := grocksdb.NewDefaultWriteOptions()
	wo.DisableWAL(true)
	ro := grocksdb.NewDefaultReadOptions()
	fo := grocksdb.NewDefaultFlushOptions()
	fo.SetWait(true)
	offOpts := grocksdb.NewDefaultOptions()
	offOpts.SetCompression(grocksdb.NoCompression)
	offOpts.SetWriteBufferSize(1 << 20)
	defer func() {
		offOpts.Destroy()
		fo.Destroy()
		ro.Destroy()
		wo.Destroy()
		cache.Destroy()
		tbl.Destroy()
		opts.Destroy()
	}()

	db, hs, err := grocksdb.OpenDbColumnFamilies(opts, path, []string{"default", "offsets"},
		[]*grocksdb.Options{opts, offOpts})
	if err != nil {
		return err
	}
	data, offsets := hs[0], hs[1]
	err = bareWork(db, data, offsets, wo, ro, fo, w)
	offsets.Destroy()
	data.Destroy()
	db.Close()
	return errors.Join(err, os.RemoveAll(path))
}

func bareWork(db *grocksdb.DB, data, offsets *grocksdb.ColumnFamilyHandle,
	wo *grocksdb.WriteOptions, ro *grocksdb.ReadOptions, fo *grocksdb.FlushOptions, w *benchWork) error {
	// Open: read the status marker, then mark the store open.
	sl, err := db.GetCF(ro, offsets, []byte("status"))
	if err != nil {
		return err
	}
	sl.Free()
	if err := db.PutCF(wo, offsets, []byte("status"), w.statusOpen); err != nil {
		return err
	}
	for i, k := range w.keys {
		if err := db.PutCF(wo, data, k, w.values[i]); err != nil {
			return err
		}
	}
	// Commit: offsets and position, then flush both column families.
	for i, k := range w.offsetKeys {
		if err := db.PutCF(wo, offsets, k, w.offsetValues[i]); err != nil {
			return err
		}
	}
	if err := db.PutCF(wo, offsets, []byte("position"), w.position); err != nil {
		return err
	}
	if err := db.FlushCF(offsets, fo); err != nil {
		return err
	}
	if err := db.FlushCF(data, fo); err != nil {
		return err
	}
	for i, k := range w.keys {
		sl, err := db.GetCF(ro, data, k)
		if err != nil {
			return err
		}
		ok := bytes.Equal(sl.Data(), w.values[i])
		sl.Free()
		if !ok {
			return fmt.Errorf("bare: record %q read back wrong", k)
		}
	}
	// Close: the status marker says the close was clean.
	return db.PutCF(wo, offsets, []byte("status"), w.statusClosed)
}

// storeLifecycle is the same lifecycle through lifecycle.Store, as the
// harness drives a store: open, records, commit, read back, close. sample,
// when not nil, runs where the harness samples, after the commit with the
// store open. The directory is removed at the end, as the bare loop does.
func storeLifecycle(env *lifecycle.Env, cfg lifecycle.Config, w *benchWork, sample func() error) error {
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o755); err != nil {
		return err
	}
	st, err := lifecycle.Open(env, cfg)
	if err != nil {
		return err
	}
	err = storeWork(st, w, sample)
	return errors.Join(err, st.Close(), os.RemoveAll(cfg.Path))
}

func storeWork(st *lifecycle.Store, w *benchWork, sample func() error) error {
	for i, k := range w.keys {
		if err := st.Put(k, w.values[i]); err != nil {
			return err
		}
	}
	if err := st.Commit(w.offsets); err != nil {
		return err
	}
	if sample != nil {
		if err := sample(); err != nil {
			return err
		}
	}
	for i, k := range w.keys {
		v, err := st.Get(k)
		if err != nil {
			return err
		}
		if !bytes.Equal(v, w.values[i]) {
			return fmt.Errorf("store: record %q read back wrong", k)
		}
	}
	return nil
}

// threadCPU is the CPU time the calling OS thread has used (user and system).
func threadCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is the CPU time the whole process has used (user and system, all
// threads: RocksDB's background flushes and Go's GC included).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var warmOnce sync.Once

// warmUp runs benchWarmup bare lifecycles once per process.
func warmUp(b *testing.B, w *benchWork) {
	var err error
	warmOnce.Do(func() {
		path := filepath.Join(benchRoot(b), "warmup")
		for range benchWarmup {
			if err = bareLifecycle(path, w); err != nil {
				return
			}
		}
	})
	if err != nil {
		b.Fatal(err)
	}
}

func newBenchSampler(b *testing.B) *measure.Sampler {
	s, err := measure.NewSampler()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

func nativeHeap(b *testing.B, s *measure.Sampler) int64 {
	m, err := s.Read()
	if err != nil {
		b.Fatal(err)
	}
	return m.NativeHeap
}

// harnessLoop is what the harness does per lifecycle: a store lifecycle
// through lifecycle.Store (ledger on) under one model, in its own Env and
// directory, with the recorder's full sample taken after the commit.
type harnessLoop struct {
	env     *lifecycle.Env
	cfg     lifecycle.Config
	rec     *recorder
	sampled time.Duration // wall time spent in samples
}

func newHarnessLoop(b *testing.B, root string, sampler *measure.Sampler, m lifecycle.Model) *harnessLoop {
	env := lifecycle.NewEnv(nil)
	return &harnessLoop{env: env, rec: benchRecorder(b, env, sampler, m.Name),
		cfg: lifecycle.Config{Path: filepath.Join(root, "task-0", "gen-0", "store-0"), Model: m, ExactlyOnce: true}}
}

func (h *harnessLoop) lifecycle(w *benchWork) error {
	return storeLifecycle(h.env, h.cfg, w, func() error {
		start := time.Now()
		err := h.rec.sample(schema.TriggerLifecycle)
		h.sampled += time.Since(start)
		return err
	})
}

// loopMeter reads the native heap and the process's CPU time before a
// benchmark loop and reports, after it, per lifecycle: lifecycles/s,
// B/lifecycle (native heap left behind: the mallinfo2 or jemalloc delta over
// the loop / b.N) and cpu-ns/lifecycle (CPU time of the whole process).
type loopMeter struct {
	sampler *measure.Sampler
	heap    int64
	cpu     time.Duration
}

func startLoopMeter(b *testing.B, s *measure.Sampler) loopMeter {
	return loopMeter{sampler: s, heap: nativeHeap(b, s), cpu: processCPU(b)}
}

func (m loopMeter) report(b *testing.B) {
	cpu := processCPU(b) - m.cpu
	heap := nativeHeap(b, m.sampler) - m.heap
	n := float64(b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "lifecycles/s")
	b.ReportMetric(float64(heap)/n, "B/lifecycle")
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/lifecycle")
}

// BenchmarkLifecycle measures one store lifecycle, in one process:
//
//   - bare: the RocksDB work alone, straight against grocksdb;
//   - harness-fixed: the same work as the harness does it: through
//     lifecycle.Store (ledger on) under the fixed model, plus the recorder's
//     full sample (Sampler.Read, Ledger.Live, Env.RocksDBMemory, the JSON event
//     to the parent) once per lifecycle;
//   - paired: one bare and one harness-fixed lifecycle per iteration, in
//     alternating order;
//   - harness-leaky: harness-fixed's work under the leaky model.
//
// bare and the harness variants report lifecycles/s, B/lifecycle (native heap left behind
// per lifecycle) and cpu-ns/lifecycle (CPU time of the whole process, RocksDB's
// background threads included); the harness variants also natives/lifecycle
// (ledger objects left live) and sample-ns/lifecycle (wall time in the sample).
//
// paired reports harness/bare, the ratio of the two variants' total wall
// times, and harness/bare-cpu, the same for CPU time. Both variants see the
// machine at the same moments, so load from other processes, which moves the
// separate variants' ns/op by tens of percent from one count to the next on a
// shared 2-core machine, cancels out of the ratio.
//
// harness-leaky runs last: what it leaks stays in the process.
func BenchmarkLifecycle(b *testing.B) {
	w := newBenchWork()
	warmUp(b, w)
	b.Run("bare", func(b *testing.B) {
		path := filepath.Join(benchRoot(b), "store")
		sampler := newBenchSampler(b)
		b.ReportAllocs()
		meter := startLoopMeter(b, sampler)
		for b.Loop() {
			if err := bareLifecycle(path, w); err != nil {
				b.Fatal(err)
			}
		}
		meter.report(b)
	})
	b.Run("harness-fixed", func(b *testing.B) { benchHarness(b, w, lifecycle.Fixed) })
	b.Run("paired", func(b *testing.B) {
		root := benchRoot(b)
		barePath := filepath.Join(root, "bare")
		h := newHarnessLoop(b, root, newBenchSampler(b), lifecycle.Fixed)
		var bare, harness, bareCPU, harnessCPU time.Duration
		timed := func(wall, cpu *time.Duration, f func() error) {
			start, cpu0 := time.Now(), processCPU(b)
			if err := f(); err != nil {
				b.Fatal(err)
			}
			*wall += time.Since(start)
			*cpu += processCPU(b) - cpu0
		}
		runBare := func() { timed(&bare, &bareCPU, func() error { return bareLifecycle(barePath, w) }) }
		runHarness := func() { timed(&harness, &harnessCPU, func() error { return h.lifecycle(w) }) }
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				runBare()
				runHarness()
			} else {
				runHarness()
				runBare()
			}
		}
		n := float64(b.N)
		b.ReportMetric(float64(bare.Nanoseconds())/n, "bare-ns/lifecycle")
		b.ReportMetric(float64(harness.Nanoseconds())/n, "harness-ns/lifecycle")
		b.ReportMetric(float64(harness)/float64(bare), "harness/bare")
		b.ReportMetric(float64(bareCPU.Nanoseconds())/n, "bare-cpu-ns/lifecycle")
		b.ReportMetric(float64(harnessCPU.Nanoseconds())/n, "harness-cpu-ns/lifecycle")
		b.ReportMetric(float64(harnessCPU)/float64(bareCPU), "harness/bare-cpu")
		b.ReportMetric(float64(h.sampled.Nanoseconds())/n, "sample-ns/lifecycle")
	})
	b.Run("harness-leaky", func(b *testing.B) { benchHarness(b, w, lifecycle.Leaky) })
}

func benchHarness(b *testing.B, w *benchWork, m lifecycle.Model) {
	sampler := newBenchSampler(b)
	h := newHarnessLoop(b, benchRoot(b), sampler, m)
	b.ReportAllocs()
	live := h.env.Ledger.LiveTotal()
	meter := startLoopMeter(b, sampler)
	for b.Loop() {
		if err := h.lifecycle(w); err != nil {
			b.Fatal(err)
		}
	}
	meter.report(b)
	b.ReportMetric(float64(h.env.Ledger.LiveTotal()-live)/float64(b.N), "natives/lifecycle")
	b.ReportMetric(float64(h.sampled.Nanoseconds())/float64(b.N), "sample-ns/lifecycle")
}
