package jvm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// kafka20616Stack is a stack of jfrconv's leak view of kafka-4.3.0 (outermost first, trimmed): the offsets column
// family's options, built in RocksDBStore.createOffsetsCFOptions and never closed.
var kafka20616Stack = []string{
	"java.lang.Thread.run_[0]", "dev.rocksleak.child.Executor.put:534_[1]",
	"org.apache.kafka.streams.state.internals.RocksDBStore.openDB:253_[0]",
	"org.apache.kafka.streams.state.internals.RocksleakStores$Segment$$Lambda$118.0x00007fe0c91361c8.open_[0]",
	"org.apache.kafka.streams.state.internals.RocksDBStore.createOffsetsCFOptions:321_[0]",
	"org.rocksdb.ColumnFamilyOptions.<init>:28_[0]", "org.rocksdb.ColumnFamilyOptions.newColumnFamilyOptions_[j]",
	"Java_org_rocksdb_ColumnFamilyOptions_newColumnFamilyOptions", "rocksdb::LRUCacheOptions::MakeSharedCache",
	"rocksdb::port::cacheline_aligned_alloc", "posix_memalign_hook",
}

// TestAllocationSite: a site is the innermost Java frame outside RocksJava and the JDK, with its line, and the
// innermost native frame that is not the allocator; a user's config setter is named by its own line.
func TestAllocationSite(t *testing.T) {
	for _, c := range []struct {
		name   string
		frames []string
		want   string
	}{
		{"Kafka's frame that called RocksJava", kafka20616Stack,
			"org.apache.kafka.streams.state.internals.RocksDBStore.createOffsetsCFOptions:321 → rocksdb::port::cacheline_aligned_alloc"},
		{"a user's config setter", []string{
			"org.apache.kafka.streams.state.internals.RocksDBStore.openDB:236_[0]",
			"com.example.LeakySetter.setConfig:42_[1]", "org.rocksdb.LRUCache.<init>:60_[0]",
			"org.rocksdb.LRUCache.newLRUCache_[j]", "Java_org_rocksdb_LRUCache_newLRUCache",
			"rocksdb::NewLRUCache", "operator new", "malloc_hook"},
			"com.example.LeakySetter.setConfig:42 → rocksdb::NewLRUCache"},
		{"a JVM thread without Java frames", []string{"clone3", "thread_native_entry", "os::malloc", "malloc_hook"}, "os::malloc"},
		{"Java frames only", []string{"com.example.App.main:3_[0]", "malloc_hook"}, "com.example.App.main:3"},
		{"the allocator only", []string{"malloc", "malloc_hook"}, "(allocator only)"},
		{"a template's name shortened", []string{"org.apache.kafka.X.y:1_[0]",
			"std::pair<std::_Rb_tree_iterator<int>, bool> std::_Rb_tree<int, std::less<int> >::_M_insert_unique<int>",
			"operator new", "malloc_hook"}, "org.apache.kafka.X.y:1 → std::_Rb_tree<…>::_M_insert_unique<…>"},
	} {
		assert.Equal(t, c.want, allocationSite(c.frames), c.name)
	}
}

// TestReadLeakViewsWeighsSampledAllocations: a stack of small allocations (below the interval) counts the interval
// per sampled allocation, one of large ones its recorded bytes; the JVM's own mallocs (os::malloc) are apart.
func TestReadLeakViewsWeighsSampledAllocations(t *testing.T) {
	dir := t.TempDir()
	small := strings.Join(kafka20616Stack, ";")
	large := "org.apache.kafka.X.y:1_[0];rocksdb::Arena::AllocateNewBlock;operator new;malloc_hook"
	jvm := "clone3;os::malloc;malloc_hook"
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	b := write("bytes", small+" 300\n"+large+" 100000\n"+jvm+" 64\n")
	c := write("counts", small+" 3\n"+large+" 1\n"+jvm+" 1\n")
	stacks, err := readLeakViews(b, c, 32768)
	require.NoError(t, err)
	require.Len(t, stacks, 3)
	got := map[string]int64{}
	for _, s := range stacks {
		got[strings.Join(s.Frames, ";")] = s.Bytes
	}
	assert.Equal(t, int64(3*32768), got[small], "three sampled allocations below the interval stand for 32 KiB each")
	assert.Equal(t, int64(100000), got[large], "one above the interval stands for itself")

	hp := &schema.HeapProfile{}
	require.NoError(t, fillNativeMemProfile(hp, dir, "kafka-4.3.0", stacks))
	assert.Equal(t, int64(3*32768+100000), hp.GrowthBytes)
	assert.Equal(t, int64(32768), hp.RuntimeBytes, "the JVM's own malloc, apart")
	require.Len(t, hp.Functions, 2)
	assert.Equal(t, "org.apache.kafka.X.y:1 → rocksdb::Arena::AllocateNewBlock", hp.Functions[0].Function)
	assert.Equal(t, "kafka-4.3.0/growth.pb.gz", hp.File)
	assert.FileExists(t, filepath.Join(dir, growthFile))
	assert.FileExists(t, filepath.Join(dir, UnfreedCollapsed))

	_, err = readLeakViews(write("bad", "no-value-here\n"), c, 1)
	require.ErrorContains(t, err, "not \"frames value\"")
}

// TestLifecyclesAtInterpolates: the lifecycle count at the leak view's cut, between the samples around it.
func TestLifecyclesAtInterpolates(t *testing.T) {
	samples := []schema.Sample{{ElapsedNs: 0, Lifecycles: 0}, {ElapsedNs: 100, Lifecycles: 10},
		{ElapsedNs: 200, Lifecycles: 30}, {ElapsedNs: 300, Lifecycles: 40}}
	start, stop := nativeMemMark{Lifecycles: 10, ElapsedNs: 100}, nativeMemMark{Lifecycles: 40, ElapsedNs: 300}
	assert.Equal(t, int64(20), lifecyclesAt(samples, 150, start, stop))
	assert.Equal(t, int64(30), lifecyclesAt(samples, 200, start, stop))
	assert.Equal(t, int64(37), lifecyclesAt(samples, 270, start, stop))
}

// TestWithNativeMemLoadsTheAgent: a profiled JVM child loads async-profiler at start and has its Java API on the
// classpath; a build without the profiler's parts is refused before any model runs, naming make jvm.
func TestWithNativeMemLoadsTheAgent(t *testing.T) {
	dir := t.TempDir()
	j := Engine{Dir: dir}
	line, err := j.ProfileCommand([]string{"java", "-Xmx1g", "-cp", "a.jar:b.jar", "Main", "--x"})
	require.NoError(t, err)
	p := filepath.Join(dir, ProfilerDir)
	assert.Equal(t, []string{"java", "-Xmx1g", "-agentpath:" + filepath.Join(p, "libasyncProfiler.so"), "-cp",
		"a.jar:b.jar:" + filepath.Join(p, "async-profiler.jar"), "Main", "--x"}, line)

	err = j.PreflightProfile()
	require.ErrorIs(t, err, ErrNotBuilt)
	require.ErrorContains(t, err, "make jvm")
}
