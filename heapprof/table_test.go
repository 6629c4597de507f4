package heapprof

import (
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// profileBuilder makes small growth profiles from stacks of function names; a name "je:x" is a frame in libjemalloc,
// "" an unsymbolized address.
type profileBuilder struct {
	p     *profile.Profile
	funcs map[string]*profile.Function
	je    *profile.Mapping
	exe   *profile.Mapping
}

func newProfileBuilder() *profileBuilder {
	b := &profileBuilder{
		p: &profile.Profile{SampleType: []*profile.ValueType{
			{Type: SampleAllocSpace, Unit: "bytes"}, {Type: SampleInuseSpace, Unit: "bytes"}}},
		funcs: map[string]*profile.Function{},
		je:    &profile.Mapping{ID: 1, File: "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"},
		exe:   &profile.Mapping{ID: 2, File: "/bin/rocksleak"},
	}
	b.p.Mapping = []*profile.Mapping{b.je, b.exe}
	return b
}

func (b *profileBuilder) add(inuse int64, stack ...string) *profileBuilder {
	s := &profile.Sample{Value: []int64{0, inuse}}
	for _, name := range stack {
		l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Address: 0x1000 + uint64(len(b.p.Location)), Mapping: b.exe}
		if len(name) > 3 && name[:3] == "je:" {
			l.Mapping, name = b.je, name[3:]
		}
		if name != "" {
			fn, ok := b.funcs[name]
			if !ok {
				fn = &profile.Function{ID: uint64(len(b.funcs) + 1), Name: name}
				b.funcs[name] = fn
				b.p.Function = append(b.p.Function, fn)
			}
			l.Line = []profile.Line{{Function: fn}}
		}
		b.p.Location = append(b.p.Location, l)
		s.Location = append(s.Location, l)
	}
	b.p.Sample = append(b.p.Sample, s)
	return b
}

func TestAllocatingFrame(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stack []string
		want  string
	}{
		{"jemalloc frames then malloc", []string{"je:prof_backtrace", "je:imalloc", "malloc", "leak_fn", "main"}, "leak_fn"},
		{"operator new", []string{"je:je_malloc_default", "operator new", "rocksdb::NewLRUCache", "main"}, "rocksdb::NewLRUCache"},
		{"operator new[] and calloc", []string{"calloc", "operator new[]", "f"}, "f"},
		{"posix_memalign", []string{"je:x", "posix_memalign", "rocksdb::port::cacheline_aligned_alloc"}, "rocksdb::port::cacheline_aligned_alloc"},
		{"unsymbolized caller", []string{"je:x", "malloc", ""}, "0x1002 (rocksleak)"},
		{"allocator only", []string{"je:x", "malloc"}, "(allocator only)"},
		{"a function merely named like new is not skipped", []string{"malloc", "operator new_handler_user", "g"}, "operator new_handler_user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProfileBuilder().add(1, tc.stack...).p
			assert.Equal(t, tc.want, AllocatingFrame(p.Sample[0]))
		})
	}
}

func TestAttribute(t *testing.T) {
	p := newProfileBuilder().
		add(600, "je:x", "malloc", "leak", "main").
		add(300, "je:x", "operator new", "leak", "other").
		add(200, "je:x", "malloc", "cache").
		add(-100, "je:x", "malloc", "shrinks").
		p
	tab, err := Attribute(p, 10)
	require.NoError(t, err)
	assert.Equal(t, schema.ProfileTable{
		Rows: []schema.ProfileRow{
			{Function: "leak", Bytes: 900, BytesPerLifecycle: 90, Share: 0.9},
			{Function: "cache", Bytes: 200, BytesPerLifecycle: 20, Share: 0.2},
			{Function: "shrinks", Bytes: -100, BytesPerLifecycle: -10, Share: -0.1},
		},
		TotalBytes: 1000, TotalPerLifecycle: 100, Lifecycles: 10,
	}, tab)

	_, err = Attribute(p, 0)
	assert.Error(t, err)
	_, err = Attribute(&profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}, 1)
	assert.Error(t, err)
}

func TestAttributeDiff(t *testing.T) {
	// a: 10 lifecycles, leaks 100 B/lifecycle in "leak" and grows 20 B/lifecycle in "registry".
	a := newProfileBuilder().add(1000, "malloc", "leak").add(200, "malloc", "registry").p
	// b: 40 lifecycles, the same registry growth per lifecycle, no leak.
	b := newProfileBuilder().add(800, "malloc", "registry").p
	tab, err := AttributeDiff(a, 10, b, 40)
	require.NoError(t, err)
	assert.Equal(t, schema.ProfileTable{
		Rows: []schema.ProfileRow{
			{Function: "leak", Bytes: 1000, BytesPerLifecycle: 100, Share: 1},
			{Function: "registry", Bytes: 0, BytesPerLifecycle: 0, Share: 0},
		},
		TotalBytes: 1000, TotalPerLifecycle: 100, Lifecycles: 10,
	}, tab)
}

func TestGrowthThrough(t *testing.T) {
	p := newProfileBuilder().
		add(600, "je:x", "operator new", "rocksdb::LRUCache::LRUCache", "rocksdb::NewLRUCache", "rocksdb_options_create").
		add(300, "je:x", "malloc", "rocksdb_options_create", "rocksdb_options_create"). // counted once
		add(100, "je:x", "malloc", "rocksdb::DBImpl::Open").
		p
	under := func(name string) bool { return name == "rocksdb_options_create" }
	got, err := GrowthThrough(p, under)
	require.NoError(t, err)
	assert.Equal(t, int64(900), got)
	got, err = GrowthThrough(p, func(string) bool { return false })
	require.NoError(t, err)
	assert.Zero(t, got)
}
