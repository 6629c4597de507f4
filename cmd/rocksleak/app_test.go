//go:build cgo

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/engine/jvm"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// exampleApp writes an app file and its properties into a temporary directory: class from the examples' jar
// (make jvm builds build/jvm/rocksleak-examples.jar), props as the properties file's lines, extra as more YAML.
func exampleApp(t *testing.T, class string, props []string, extra ...string) string {
	t.Helper()
	jar := filepath.Join(jvmDir(), "rocksleak-examples.jar")
	if _, err := os.Stat(jar); err != nil {
		if os.Getenv("ROCKSLEAK_REQUIRE_JVM") == "1" {
			t.Fatalf("the examples are required (make jvm builds them): %v", err)
		}
		t.Skipf("the examples are not built (make jvm): %v", err)
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.properties"),
		[]byte("application.id=example\nbootstrap.servers=broker:9092\n"+strings.Join(props, "\n")+"\n"), 0o600))
	more := strings.Join(extra, "\n")
	if !strings.Contains(more, "steps_per_lifecycle:") {
		more += "\nsteps_per_lifecycle: 5"
	}
	yaml := fmt.Sprintf("class: %s\nclasspath: [%s]\nproperties: app.properties\n%s\n", class, jar, more)
	path := filepath.Join(dir, "app.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	return path
}

// runApp runs rocksleak run --app with args and returns its result (nil when none was written), its output and its
// exit status.
func runApp(t *testing.T, app string, args ...string) (*schema.Result, string, int) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	stdout, stderr, code := runCLI(t, append([]string{"run", "--app", app, "--out", out, "--state-dir", stateRoot(t)}, args...)...)
	res, err := schema.Read(filepath.Join(out, "result.json"))
	if err != nil {
		res = nil
	}
	return res, stdout + stderr, code
}

// TestAppLeakySetterFoundClosingSetterNot: a config setter that builds an LRUCache per store in setConfig and never
// closes it leaks one live cache per store open (the ledger, read from the caches with isOwningHandle()), its
// native heap grows per lifecycle above the floor, and its growth over its negative control's (the same cache,
// closed in close()) is what one cache holds after its store's life, as CacheProbe measures it: the 95% interval of
// leaky − closing per open covers the probe's figure. That figure is an empty cache and the block-cache entry-stats
// collector RocksDB's DB open puts into the cache and its close leaves there (docs/findings.md, 2026-12-06). The
// closing setter leaves no cache live.
func TestAppLeakySetterFoundClosingSetterNot(t *testing.T) {
	if testing.Short() {
		t.Skip("two JVM runs of 1,000 and 500 lifecycles")
	}
	sharesTheCores(t)
	requireJVM(t, "4.3.1")
	// 500 task lives, not 200: at 200 the difference's 95% interval was about ±1 KB wide, wider than the ~800 B a
	// used cache holds beyond an empty one, so it covered both figures; at 500 it was ±130 B (docs/findings.md).
	// The leaky setter's run is twice that: the code's native heap grows faster over its first ~300 store opens
	// (a concave warm-up), and at 500 task lives its warm-up cut reached its limit in 2 of 6 runs, withholding the
	// verdict (as it should: the tool's advice is a run twice as long); at 1,000, 5 of 5 cut 30-210 of 1,001 samples.
	// The closing setter's assertion, not a leak, holds whether or not its verdict is withheld.
	leaky, out, code := runApp(t, exampleApp(t, "dev.rocksleak.examples.KeyValueApp",
		[]string{"rocksdb.config.setter=dev.rocksleak.examples.LeakySetter"}), "--lifecycles", "1000")
	require.Equal(t, 0, code, out)
	closing, out, code := runApp(t, exampleApp(t, "dev.rocksleak.examples.KeyValueApp",
		[]string{"rocksdb.config.setter=dev.rocksleak.examples.ClosingSetter"}), "--lifecycles", "500")
	require.Equal(t, 0, code, out)
	l, c := leaky.Runs["kafka-4.3.1"], closing.Runs["kafka-4.3.1"]
	require.NotNil(t, l.App)
	assert.Equal(t, l.App.StoreOpens, l.LedgerAtEnd["cache"], "one live cache per store open")
	assert.Equal(t, int64(1000), l.App.StoreOpens)
	assert.Zero(t, c.LedgerAtEnd["cache"], "the closing setter leaves no cache live")
	assert.Equal(t, l.App.StoreOpens, l.LedgerAtEnd["read_options"], "RocksJava's read options, one per store open, both")
	assert.Equal(t, c.App.StoreOpens, c.LedgerAtEnd["read_options"], "RocksJava's read options, one per store open, both")
	probe := cacheProbe(t, 16<<20)
	nat := l.Fits[analysis.SignalNativeHeap].Total.PerLifecycle
	assert.Greater(t, nat.Low, analysis.DefaultFloors().NativeHeap, "the leak is above the floor: %+v", nat)
	d := analysis.Difference(*l.Fits[analysis.SignalNativeHeap].Total, *c.Fits[analysis.SignalNativeHeap].Total)
	t.Logf("leaky %s; closing %s; difference %.0f [%.0f, %.0f] B/lifecycle; probe: %.0f B per empty cache, %.0f B "+
		"per cache after one store life", l.Verdict.Reason, c.Verdict.Reason, d.Value, d.Low, d.High, probe.empty,
		probe.afterLife)
	assert.True(t, d.Low <= probe.afterLife && probe.afterLife <= d.High,
		"the leak per open is one cache after its store's life: difference [%.0f, %.0f] does not cover the probe's %.0f B",
		d.Low, d.High, probe.afterLife)
	require.NotNil(t, l.Verdict.Leak)
	assert.True(t, *l.Verdict.Leak, l.Verdict.Reason)
	assert.False(t, c.Verdict.Leak != nil && *c.Verdict.Leak, c.Verdict.Reason)
}

// TestAppReadOptionsFixOnAnApplication: an application's RocksDB instances, opened by Kafka's own stores in its
// TopologyTestDriver, are found in the driver's stores (the child's AppStores): each leaves RocksJava's read options
// live after its close (facebook/rocksdb#15069), one per store open in the ledger, and the read-options fix's model
// closes them: none live, and the native heap's paired difference 4.3.1 − the fix is above zero.
func TestAppReadOptionsFixOnAnApplication(t *testing.T) {
	if testing.Short() {
		t.Skip("two JVM runs of 150 lifecycles")
	}
	sharesTheCores(t)
	requireJVM(t, "4.3.1")
	res, out, code := runApp(t, exampleApp(t, "dev.rocksleak.examples.KeyValueApp", []string{"example.stores=4"}),
		"--models", "kafka-4.3.1,kafka-4.3.1+read-options-fix", "--lifecycles", "150")
	require.Equal(t, 0, code, out)
	plain, fixed := res.Runs["kafka-4.3.1"], res.Runs["kafka-4.3.1+read-options-fix"]
	require.NotNil(t, plain.App)
	require.NotNil(t, fixed.App)
	assert.Equal(t, int64(600), plain.App.StoreOpens, "4 stores a task's life")
	assert.Equal(t, plain.App.StoreOpens, plain.LedgerAtEnd["read_options"], "one live read options per store open")
	assert.Zero(t, fixed.LedgerAtEnd["read_options"], "the fix closes them")
	assert.Zero(t, plain.LedgerAtEnd["db"], "every instance closed")
	var c *schema.Controlled
	for i := range res.Controlled {
		if x := &res.Controlled[i]; x.Model == "kafka-4.3.1" && x.Signal == analysis.SignalNativeHeap {
			c = x
		}
	}
	require.NotNil(t, c, "the paired verdict of 4.3.1 against its fix")
	t.Logf("4.3.1 - fix: %+v per lifecycle, %.0f B per store open", c.Difference, c.Difference.Value/4)
	assert.Greater(t, c.Difference.Low, 0.0, "the fix removes native heap: %+v", c.Difference)
}

// cacheFigures are CacheProbe's two figures, in bytes of native heap per LRUCache.
type cacheFigures struct {
	empty     float64 // one empty cache
	afterLife float64 // one cache after one store life on it (Kafka's RocksDBStore opened, written, closed)
}

// cacheProbe runs the JVM child's CacheProbe for caches of the given capacity, 50 store lives, with glibc's
// per-thread cache off (it would read the release of 50 caches about 90 B low each; CacheProbe's comment). Its
// figure after one store life is the median of 50 closes, each read alone: read around all 50 at once it swung
// from 10,958 B to 18,927 B between runs (the JVM's own threads allocate meanwhile) and failed this test twice.
func cacheProbe(t *testing.T, capacity int64) cacheFigures {
	t.Helper()
	line, err := jvm.Engine{Dir: jvmDir()}.CommandLine("4.3.1", t.TempDir())
	require.NoError(t, err)
	var cp string
	for i, a := range line {
		if a == "-cp" {
			cp = line[i+1]
		}
	}
	cmd := exec.Command(line[0], "-cp", cp, "dev.rocksleak.child.CacheProbe", strconv.FormatInt(capacity, 10), "2000", "50")
	cmd.Env = append(os.Environ(), "GLIBC_TUNABLES=glibc.malloc.tcache_count=0")
	b, err := cmd.Output()
	require.NoError(t, err)
	t.Logf("CacheProbe: %s", b)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.GreaterOrEqual(t, len(lines), 2, string(b))
	var f [2]float64
	for i, l := range lines[:2] {
		f[i], err = strconv.ParseFloat(strings.Fields(l)[0], 64)
		require.NoError(t, err, string(b))
	}
	return cacheFigures{empty: f[0], afterLife: f[1]}
}

// TestAppIteratorLeftOpenGrowsWithinLifecycle: a punctuator that never closes store.all()'s iterator grows the
// native heap inside each task's life, with Kafka's num-open-iterators counting them, and is not a leak across
// lifecycles (the close releases them); the same scan in try-with-resources grows nothing inside a lifecycle.
func TestAppIteratorLeftOpenGrowsWithinLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("two JVM runs of 100 lifecycles")
	}
	sharesTheCores(t)
	requireJVM(t, "4.3.1")
	for _, tc := range []struct {
		close bool
	}{{false}, {true}} {
		res, out, code := runApp(t, exampleApp(t, "dev.rocksleak.examples.IteratorApp",
			[]string{"metrics.recording.level=DEBUG", fmt.Sprintf("example.close.iterators=%v", tc.close)},
			"steps_per_lifecycle: 20"), "--lifecycles", "100")
		require.Equal(t, 0, code, out)
		run := res.Runs["kafka-4.3.1"]
		w := run.WithinLifecycle
		require.NotNil(t, w, out)
		t.Logf("close=%v: %s; %d open iterators; verdict %s", tc.close, w.Reason, w.OpenIteratorsPeak, run.Verdict.Reason)
		assert.False(t, run.Verdict.Leak != nil && *run.Verdict.Leak, "not a leak across lifecycles: %s", run.Verdict.Reason)
		if tc.close {
			assert.False(t, w.Present, w.Reason)
			assert.Zero(t, w.OpenIteratorsPeak)
			continue
		}
		assert.True(t, w.Present, w.Reason)
		assert.Equal(t, int64(20), w.OpenIteratorsPeak, "one iterator per punctuation, one punctuation per step")
		assert.Greater(t, w.Punctuations, 0.0)
	}
}

// TestAppBoundedSetterHoldsItsBound: Kafka's documented bounded-memory setter (one static Cache and
// WriteBufferManager shared by every store) keeps one live cache and one write buffer manager however many stores
// open (LeakySetter's ledger counts one per open), and RocksDB's block cache, the shared cache every store reports,
// stays within its 64 MiB capacity as the task's stores scale from 8 to 64. Across 300 task lives at 8 stores its
// native heap grows with the shared cache filling toward that capacity: the verdict takes the cache out (one cache,
// its usage rising below its capacity, in verdict.cache_bound), and outside it the setter grows no more than the
// same application with Kafka's default options, by less than the native heap's floor: what it adds is its cache.
// The verdict outside the cache is logged, not asserted: at 8 stores it sits near the floor (docs/your-application.md).
func TestAppBoundedSetterHoldsItsBound(t *testing.T) {
	if testing.Short() {
		t.Skip("three JVM runs, two of 300 task lives")
	}
	sharesTheCores(t)
	requireJVM(t, "4.3.1")
	runs := map[string]*schema.Run{}
	for _, tc := range []struct {
		name, setter string
		stores, n    int
	}{
		{"bounded-8", "rocksdb.config.setter=dev.rocksleak.examples.BoundedMemorySetter", 8, 300},
		{"default-8", "", 8, 300},
		{"bounded-64", "rocksdb.config.setter=dev.rocksleak.examples.BoundedMemorySetter", 64, 15},
	} {
		res, out, code := runApp(t, exampleApp(t, "dev.rocksleak.examples.KeyValueApp",
			[]string{tc.setter, fmt.Sprintf("example.stores=%d", tc.stores)}), "--lifecycles", strconv.Itoa(tc.n))
		require.Equal(t, 0, code, out)
		run := res.Runs["kafka-4.3.1"]
		require.NotNil(t, run.WithinLifecycle)
		require.NotNil(t, run.Resident)
		w := run.WithinLifecycle
		t.Logf("%s: %s; native heap per open store %.0f B; block cache %.0f B over %.0f stores; memtables %.0f B",
			tc.name, run.Verdict.Reason, run.Resident.NativeHeapPerDB, w.BlockCache, w.OpenStores, w.MemTables)
		assert.Equal(t, float64(tc.stores), w.OpenStores)
		runs[tc.name] = run
		if tc.setter == "" {
			continue
		}
		assert.Equal(t, int64(1), run.LedgerAtEnd["cache"], "one shared cache")
		assert.Equal(t, int64(1), run.LedgerAtEnd["write_buffer_manager"], "one shared write buffer manager")
		assert.LessOrEqual(t, w.BlockCache/w.OpenStores, float64(64<<20), "the shared cache's usage is within its capacity")
	}
	b, d := runs["bounded-8"], runs["default-8"]
	assert.Nil(t, d.Verdict.CacheBound, "Kafka's default options: a cache per store, closed with it; nothing taken out")
	cb := b.Verdict.CacheBound
	require.NotNil(t, cb, "the verdict takes the filling shared cache out: %s", b.Verdict.Reason)
	assert.Equal(t, 1, cb.Caches)
	assert.Equal(t, float64(64<<20), cb.Capacity, "the setter's TOTAL_OFF_HEAP_MEMORY, from Kafka's block-cache-capacity")
	assert.Less(t, cb.Usage, cb.Capacity)
	assert.Greater(t, cb.Growth.Low, 0.0, "the shared cache fills")
	outside := schema.SignalFit{Fit: stats.Fit{PerLifecycle: cb.Outside, Confidence: 0.95}}
	diff := analysis.Difference(outside, *d.Fits[analysis.SignalNativeHeap].Total)
	t.Logf("bounded outside its cache - default at 8 stores: %.0f [%.0f, %.0f] B/lifecycle; the cache %.0f [%.0f, %.0f]",
		diff.Value, diff.Low, diff.High, cb.Growth.Value, cb.Growth.Low, cb.Growth.High)
	assert.Less(t, diff.High, analysis.DefaultFloors().NativeHeap,
		"outside its shared cache the setter adds less than the floor to Kafka's default options")
}

// TestAppOrdersAggregatorUpgrade: a DSL windowed aggregation shaped like examples/orders-aggregator.yaml meets
// KAFKA-20616 as a user's topology: on Kafka 4.3.0 its task lives leak (every segment and store close leaves its
// offsets column family's options), on 4.3.1 they do not, and 4.3.0 − 4.3.1 per RocksDB open lies above the floor.
func TestAppOrdersAggregatorUpgrade(t *testing.T) {
	if testing.Short() {
		t.Skip("two JVM runs of 300 task lives, 6 RocksDB opens each")
	}
	sharesTheCores(t)
	requireJVM(t, "4.3.0", "4.3.1")
	app := exampleApp(t, "dev.rocksleak.examples.OrdersAggregator", []string{"statestore.cache.max.bytes=1048576"},
		"steps_per_lifecycle: 30", "stream_time_per_step: 4m", "wall_clock_per_step: 30s")
	// 300 task lives, not 200: the code's native heap grows faster over its first ~500 RocksDB opens (a concave
	// warm-up), and at 200 task lives 4.3.0's warm-up cut reached its limit in 2 of 5 runs (a fresh clone's CI at
	// 3824284, and 1 of 4 runs by hand), withholding its verdict as the tool should; at 300, 4 of 4 runs read a leak, cutting 0-85 of 301.
	res, out, code := runApp(t, app, "--models", "kafka-4.3.0,kafka-4.3.1", "--lifecycles", "300")
	require.Equal(t, 0, code, out)
	old, fixed := res.Runs["kafka-4.3.0"], res.Runs["kafka-4.3.1"]
	t.Logf("4.3.0: %s; 4.3.1: %s", old.Verdict.Reason, fixed.Verdict.Reason)
	require.NotNil(t, old.Verdict.Leak)
	assert.True(t, *old.Verdict.Leak, old.Verdict.Reason)
	assert.False(t, fixed.Verdict.Leak != nil && *fixed.Verdict.Leak, fixed.Verdict.Reason)
	require.True(t, perRocksDBOpen(res))
	d := analysis.Difference(*old.Fits[analysis.SignalNativeHeap].Total, *fixed.Fits[analysis.SignalNativeHeap].Total)
	t.Logf("4.3.0 - 4.3.1 per RocksDB open: %.0f [%.0f, %.0f] B (%d opens over %d task lives)", d.Value, d.Low, d.High,
		old.App.StoreOpens, old.Lifecycles)
	assert.Greater(t, d.Low, analysis.DefaultFloors().NativeHeap)
	assert.Greater(t, old.App.SegmentOpens, int64(0), "window segments rolled inside Kafka's store")
}

// TestAppProfileNamesTheSetterLine: rocksleak run --app --profile records the application's native allocations
// never freed, with Java frames, and the table names the user's config setter: the leaky setter's
// LRUCache per store open is most of the unfreed bytes, under LeakySetter.setConfig, and the profile's bytes per
// lifecycle agree with the native heap's slope (the cross-check). Its negative control, the setter that closes its
// cache in close(), has no unfreed bytes under its frame.
func TestAppProfileNamesTheSetterLine(t *testing.T) {
	if testing.Short() {
		t.Skip("two profiled JVM runs of 200 lifecycles")
	}
	sharesTheCores(t)
	requireJVM(t, "4.3.1")
	under := func(hp *schema.HeapProfile, frame string) (b int64) {
		for _, f := range hp.Functions {
			if strings.Contains(f.Function, frame) {
				b += f.Bytes
			}
		}
		return b
	}
	for _, tc := range []struct {
		setter string
		leaks  bool
	}{{"LeakySetter", true}, {"ClosingSetter", false}} {
		res, out, code := runApp(t, exampleApp(t, "dev.rocksleak.examples.KeyValueApp",
			[]string{"rocksdb.config.setter=dev.rocksleak.examples." + tc.setter}), "--lifecycles", "200", "--profile")
		require.Equal(t, 0, code, out)
		hp := res.Runs["kafka-4.3.1"].Profile
		require.NotNil(t, hp, out)
		require.Empty(t, hp.Error)
		setter := under(hp, "dev.rocksleak.examples."+tc.setter+".setConfig")
		t.Logf("%s: unfreed %d B over %d lifecycles, %d B under its setConfig; slope ratio %.3f",
			tc.setter, hp.GrowthBytes, hp.Lifecycles, setter, hp.SlopeRatio)
		if !tc.leaks {
			assert.Zero(t, setter, "the closing setter leaves nothing unfreed under its frame")
			continue
		}
		assert.Greater(t, float64(setter), 0.8*float64(hp.GrowthBytes), "the setter's line holds most of the unfreed bytes")
		assert.InDelta(t, 1, hp.SlopeRatio, 0.3, "the profile's unfreed bytes per lifecycle agree with the native heap's slope")
	}
}
