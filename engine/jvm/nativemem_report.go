package jvm

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/rocksleak/rocksleak/heapprof"
	"github.com/rocksleak/rocksleak/schema"
)

// leakStack is one stack of jfrconv's leak view: its frames outermost first, the sampled allocations made there and
// never freed (Count, and their bytes as recorded), and Bytes, their estimate unsampled (weighted).
type leakStack struct {
	Frames   []string
	Count    int64
	Recorded int64
	Bytes    int64
}

// readLeakViews reads jfrconv's two collapsed leak views of one recording, bytes (--total) and counts, and weights
// each stack's allocations unsampled for interval: async-profiler records a malloc of size s < interval about
// s/interval of the time and every larger one, so a sampled allocation stands for max(s, interval) bytes. Per stack,
// Bytes = max(recorded bytes, count × interval): exact when the stack's allocations are all below the interval or
// all at or above it (a stack, with its line numbers, mostly allocates one size).
func readLeakViews(bytesFile, countsFile string, interval int64) ([]leakStack, error) {
	recorded, err := readCollapsed(bytesFile)
	if err != nil {
		return nil, err
	}
	counts, err := readCollapsed(countsFile)
	if err != nil {
		return nil, err
	}
	out := make([]leakStack, 0, len(recorded))
	for stack, b := range recorded {
		c := counts[stack]
		out = append(out, leakStack{Frames: strings.Split(stack, ";"), Count: c, Recorded: b, Bytes: max(b, c*interval)})
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i].Frames, ";") < strings.Join(out[j].Frames, ";") })
	return out, nil
}

// readCollapsed reads a collapsed-stacks file ("frame;frame;... value" a line; a frame may hold spaces, as in
// "operator new", so the value is after the last one), summing a stack's repeated lines.
func readCollapsed(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseInt(line[i+1:], 10, 64)
		if i <= 0 || err != nil {
			return nil, fmt.Errorf("%s:%d: not \"frames value\": %q", path, n, line)
		}
		out[line[:i]] += v
	}
	return out, sc.Err()
}

// javaSuffixes are jfrconv's marks on a Java frame's name (interpreted, JIT-compiled, inlined, C1-compiled).
var javaSuffixes = []string{"_[0]", "_[j]", "_[i]", "_[1]"}

// splitFrame returns a collapsed frame's name without jfrconv's type mark, whether it is a Java frame, and its line
// (--lines: "Class.method:line"; 0 when none).
func splitFrame(f string) (name string, java bool, line int64) {
	for _, s := range javaSuffixes {
		if strings.HasSuffix(f, s) {
			name, java = strings.TrimSuffix(f, s), true
			break
		}
	}
	if !java {
		return strings.TrimSuffix(f, "_[k]"), false, 0
	}
	if i := strings.LastIndexByte(name, ':'); i > 0 {
		if n, err := strconv.ParseInt(name[i+1:], 10, 64); err == nil {
			return name[:i], true, n
		}
	}
	return name, true, 0
}

// libraryPrefixes are the Java packages a site is not attributed to: RocksJava, which allocates for its caller, and
// the JDK's. The site's Java frame is the innermost one outside them: Kafka's frame that called RocksJava, or the
// user's own (their RocksDBConfigSetter's setConfig line).
var libraryPrefixes = []string{"org.rocksdb.", "java.", "jdk.", "sun.", "com.sun.", "one.profiler."}

func isNativeAllocator(name string) bool {
	return heapprof.IsAllocatorFunction(name) || strings.HasSuffix(name, "_hook") || strings.HasSuffix(name, "_hook_dummy")
}

// allocationSite names where a stack's bytes were allocated: "<Java frame>:<line> → <native function>", the
// innermost Java frame outside libraryPrefixes (and the JVM's hidden lambda classes) and the innermost native frame
// that is not the allocator (heapprof's rule, with async-profiler's hooks); one part alone when the stack has no
// such Java frame (the JVM's own threads) or no such native frame.
func allocationSite(frames []string) string {
	native, javaSite := "", ""
	for i := len(frames) - 1; i >= 0; i-- {
		name, java, line := splitFrame(frames[i])
		switch {
		case !java && native == "" && javaSite == "" && !isNativeAllocator(name):
			native = name
		case java && javaSite == "" && !strings.Contains(name, "$$Lambda") && !hasAnyPrefix(name, libraryPrefixes):
			javaSite = name
			if line > 0 {
				javaSite += ":" + strconv.FormatInt(line, 10)
			}
		}
		if javaSite != "" {
			break
		}
	}
	native = shortNative(native)
	switch {
	case javaSite != "" && native != "":
		return javaSite + " → " + native
	case javaSite != "":
		return javaSite
	case native != "":
		return native
	}
	return "(allocator only)"
}

// shortNative shortens a C++ function's name for a table: template arguments dropped ("std::_Rb_tree<…>::_M_insert"
// for std::_Rb_tree<rocksdb::CacheEntryRole, …>::_M_insert), and a return type before the name with them.
func shortNative(name string) string {
	if !strings.Contains(name, "<") {
		return name
	}
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '<':
			if depth == 0 {
				b.WriteString("<…>")
			}
			depth++
		case r == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	out := b.String()
	if i := strings.LastIndexByte(out, ' '); i >= 0 && !strings.Contains(out, "(anonymous namespace)") && !strings.Contains(out, "operator") {
		out = out[i+1:]
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isRuntimeMalloc reports whether a stack allocated through HotSpot's os::malloc or os::realloc: the JVM's own
// malloc, which Native Memory Tracking counts (the child's runtime_malloc) and the native-heap signal leaves out.
func isRuntimeMalloc(frames []string) bool {
	for _, f := range frames {
		if f == "os::malloc" || f == "os::realloc" {
			return true
		}
	}
	return false
}

// fillNativeMemProfile sets hp's growth and functions from the weighted stacks, the JVM's own mallocs apart
// (RuntimeBytes), and writes every stack to dir/unfreed.collapsed and dir/growth.pb.gz (pprof: inuse_objects, the
// sampled allocations; inuse_space, their weighted bytes).
func fillNativeMemProfile(hp *schema.HeapProfile, dir, model string, stacks []leakStack) error {
	by := map[string]int64{}
	var collapsed bytes.Buffer
	for _, s := range stacks {
		fmt.Fprintf(&collapsed, "%s %d\n", strings.Join(s.Frames, ";"), s.Bytes)
		if isRuntimeMalloc(s.Frames) {
			hp.RuntimeBytes += s.Bytes
			continue
		}
		hp.GrowthBytes += s.Bytes
		by[allocationSite(s.Frames)] += s.Bytes
	}
	for fn, b := range by {
		hp.Functions = append(hp.Functions, schema.ProfileFunction{Function: fn, Bytes: b})
	}
	sort.Slice(hp.Functions, func(i, j int) bool {
		a, b := hp.Functions[i], hp.Functions[j]
		return a.Bytes > b.Bytes || (a.Bytes == b.Bytes && a.Function < b.Function)
	})
	if err := os.WriteFile(filepath.Join(dir, UnfreedCollapsed), collapsed.Bytes(), 0o644); err != nil {
		return err
	}
	var pb bytes.Buffer
	if err := leakProfile(stacks).Write(&pb); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, growthFile), pb.Bytes(), 0o644); err != nil {
		return err
	}
	hp.File = filepath.ToSlash(filepath.Join(model, growthFile))
	return nil
}

// leakProfile is the stacks as a pprof profile: a location per frame and line, leaf first.
func leakProfile(stacks []leakStack) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: heapprof.SampleInuseObjects, Unit: "count"}, {Type: heapprof.SampleInuseSpace, Unit: "bytes"}},
		DefaultSampleType: heapprof.SampleInuseSpace,
	}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	for _, s := range stacks {
		sample := &profile.Sample{Value: []int64{s.Count, s.Bytes}}
		for i := len(s.Frames) - 1; i >= 0; i-- {
			l := locs[s.Frames[i]]
			if l == nil {
				name, _, line := splitFrame(s.Frames[i])
				fn := funcs[name]
				if fn == nil {
					fn = &profile.Function{ID: uint64(len(funcs) + 1), Name: name, SystemName: name}
					funcs[name] = fn
					p.Function = append(p.Function, fn)
				}
				l = &profile.Location{ID: uint64(len(locs) + 1), Line: []profile.Line{{Function: fn, Line: line}}}
				locs[s.Frames[i]] = l
				p.Location = append(p.Location, l)
			}
			sample.Location = append(sample.Location, l)
		}
		p.Sample = append(p.Sample, sample)
	}
	return p
}
