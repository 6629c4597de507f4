package goengine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/schema"
)

// benchRecorder is the harness's own recorder (the code the child runs after
// each lifecycle) over env, emitting its events as JSON lines into a pipe that
// a goroutine drains, as the child writes them to the parent.
func benchRecorder(b *testing.B, env *lifecycle.Env, sampler *measure.Sampler, model string) *recorder {
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	drained := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, r)
		close(drained)
	}()
	b.Cleanup(func() {
		_ = w.Close()
		<-drained
		_ = r.Close()
	})
	return &recorder{topo: &Topology{env: env, restoreLog: &durationLog{dir: b.TempDir()}}, sampler: sampler, model: model, begin: time.Now(),
		every: 1, interval: 250 * time.Millisecond, out: harness.NewEventWriter(w)}
}

// BenchmarkSampleCost measures one full harness sample (recorder.sample:
// Sampler.Read, the counters, the ledger's live counts, RocksDB's own figures
// under their rule (RocksDBFiguresDBsPerSample of the open DBs in the
// round-robin on every RocksDBFiguresEvery-th sample) and the JSON event to
// the parent) with k stores open, each holding one flushed SST per column
// family, in a hot loop: the round-robin goes round the k real DBs. Besides
// ns/op it reports, as ns/sample metrics, what each part costs on its own
// (rocksdb: the rule's part, what a sample spends on RocksDB's figures on
// average; rocksdb-all: RocksDB's figures of all k DBs at once, what a sample
// spent before the rule; event: the JSON line written to a pipe that a
// goroutine drains, as the child writes to its parent), and cpu-ns/sample,
// the CPU time of the sampling thread per sample, which load from other
// processes moves far less than ns/op on a shared machine, and free-chunks,
// the free chunks glibc's native-heap read walked (measure.NativeHeapFreeChunks,
// after the loop; -1 under jemalloc), which its cost follows. Each count starts
// from a consolidated heap (measure.TrimNativeHeap), so that counts do not
// differ by the free chunks the stores of earlier counts left behind, as far
// as malloc_trim consolidates them (not wholly: free-chunks rises from count
// to count). It runs before BenchmarkLifecycle so that
// no memory leaked by harness-leaky is in the heap it walks.
func BenchmarkSampleCost(b *testing.B) {
	w := newBenchWork()
	for _, k := range []int{8, 64, 512} {
		b.Run(fmt.Sprintf("open=%d", k), func(b *testing.B) {
			// Not the free chunks of the stores earlier counts closed: the
			// native-heap read walks every free chunk (see measure.TrimNativeHeap).
			measure.TrimNativeHeap()
			root := benchRoot(b)
			env := lifecycle.NewEnv(nil)
			for i := range k {
				cfg := lifecycle.Config{Path: filepath.Join(root, fmt.Sprintf("store-%d", i)), Model: lifecycle.Fixed}
				st, err := lifecycle.Open(env, cfg)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = st.Close() })
				if err := storeWork(st, w, nil); err != nil {
					b.Fatal(err)
				}
			}
			sampler := newBenchSampler(b)
			rec := benchRecorder(b, env, sampler, lifecycle.Fixed.Name)
			b.ReportAllocs()
			// One OS thread, as the child's topology samples from its locked
			// thread; its CPU time is the sample's cost without the time the
			// thread waited for a core (load from other processes).
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu := threadCPU(b)
			for b.Loop() {
				if err := rec.sample(schema.TriggerLifecycle); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((threadCPU(b)-cpu).Nanoseconds())/float64(b.N), "cpu-ns/sample")
			b.ReportMetric(float64(measure.NativeHeapFreeChunks()), "free-chunks")
			n := min(b.N, 1000)
			part := func(unit string, f func() error) {
				start := time.Now()
				for range n {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(n), unit)
			}
			part("read-ns/sample", func() error { _, err := sampler.Read(); return err })
			part("ledger-ns/sample", func() error { _ = rec.liveNatives(); return nil })
			var round rocksdbFigures // the rule the sample applies (RocksDBFiguresDBsPerSample, RocksDBFiguresEvery)
			part("rocksdb-ns/sample", func() error { _ = round.take(env); return nil })
			part("rocksdb-all-ns/sample", func() error { _, err := env.RocksDBMemory(); return err })
			s := schema.Sample{Model: lifecycle.Fixed.Name, Trigger: schema.TriggerLifecycle,
				LiveNatives: kindMap(env.Ledger.Live())}
			part("event-ns/sample", func() error { return rec.out.WriteSample(&s) })
		})
	}
}
