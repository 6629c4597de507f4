// Package heapprof reads jemalloc's heap profile dumps (format heap_v2, written by mallctl "prof.dump"), symbolizes
// their stacks against the binary and the shared libraries the process mapped, and turns the difference of two dumps
// of one process into growth by allocation stack: a pprof profile (github.com/google/pprof/profile) and the plain data
// of a "where the growth was allocated" table.
//
// The package is pure Go: it needs neither cgo nor jemalloc's jeprof, only the dump files and the ELF files named in
// their mappings (which must be the same files the process ran).
//
// Unsampling follows jeprof's AdjustSamples for heap_v2 (jemalloc's bin/jeprof.in): jemalloc samples allocations as
// a Poisson process of mean interval R = 2^lg_prof_sample bytes, so a stack with n sampled objects of s bytes in all
// stands for n·k objects and s·k bytes, k = 1/(1 − exp(−(s/n)/R)). jemalloc 5.3 (prof_data.c, prof_do_unbias)
// writes its counts so that this formula yields its own unbiased estimate.
//
// Use, for a child started with LD_PRELOAD of libjemalloc and MALLOC_CONF from measure.HeapProfileMallocConf, which
// called measure.DumpHeapProfile at the end of its warm-up (warm.heap) and at the end of its run (end.heap), with n
// lifecycles between the two dumps:
//
//	warm, err := heapprof.ParseFile(filepath.Join(dir, "warm.heap"))
//	end, err := heapprof.ParseFile(filepath.Join(dir, "end.heap"))
//	growth, err := heapprof.Growth(warm, end, heapprof.NewSymbolizer()) // symbolize while the binaries are there
//	err = growth.Write(f)                                                // growth.pb.gz: go tool pprof -top growth.pb.gz
//	table, err := heapprof.Attribute(growth, n)                          // where the growth was allocated
//	diff, err := heapprof.AttributeDiff(leakyGrowth, nLeaky, fixedGrowth, nFixed)
//
// Accuracy: for growth of G bytes made of objects much smaller than the sampling interval R, the estimate's relative
// standard deviation is about sqrt(R/G) (18% for 1 MiB at R = 32 KiB, 1.8% for 100 MiB).
package heapprof

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// ErrFormat is wrapped by every parse error.
var ErrFormat = errors.New("heapprof: not a jemalloc heap_v2 dump")

// Counts are one line of a dump: sampled objects and bytes live at the dump, and (when jemalloc runs with
// prof_accum:true, else zero) sampled objects and bytes allocated since the process started. They are the sampled
// figures as written; Dump.Estimate unsamples them.
type Counts struct {
	InuseObjects, InuseBytes int64
	AllocObjects, AllocBytes int64
}

// Record is one allocation stack of a dump with its all-threads ("t*") counts.
type Record struct {
	// Stack holds the addresses as jemalloc wrote them, innermost first: Stack[0] is the program counter inside the
	// allocator, the others are return addresses.
	Stack  []uint64
	Counts Counts
}

// Mapping is one line of the process's memory map as written after MAPPED_LIBRARIES (the /proc/self/maps format).
type Mapping struct {
	Start, Limit uint64 // [Start, Limit) in the process's address space
	Offset       uint64 // file offset mapped at Start
	Perms        string // e.g. "r-xp"
	Path         string // file path, or "" / "[stack]" etc. for anonymous mappings
}

// Dump is one parsed heap_v2 dump.
type Dump struct {
	// SamplePeriod is the mean sampling interval R in bytes (2^lg_prof_sample), from the "heap_v2/R" header.
	SamplePeriod int64
	// Total is the all-threads total of the header.
	Total    Counts
	Records  []Record
	Mappings []Mapping
}

// ParseFile parses the dump at path.
func ParseFile(path string) (*Dump, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Parse reads a heap_v2 dump. Per-thread lines ("t0:", "t1:", …) are read past: only the all-threads counts are kept.
func Parse(r io.Reader) (*Dump, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: empty", ErrFormat)
	}
	header := strings.TrimSpace(sc.Text())
	period, ok := strings.CutPrefix(header, "heap_v2/")
	if !ok {
		return nil, fmt.Errorf("%w: header %q", ErrFormat, header)
	}
	d := &Dump{}
	var err error
	if d.SamplePeriod, err = strconv.ParseInt(period, 10, 64); err != nil || d.SamplePeriod <= 0 {
		return nil, fmt.Errorf("%w: sample period in header %q", ErrFormat, header)
	}
	var cur *Record // record whose counts come next; nil while in the header
	seenTotal := false
	line := 1
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
		case text == "MAPPED_LIBRARIES:":
			for i := range d.Records {
				if d.Records[i].Counts.InuseObjects == -1 {
					return nil, fmt.Errorf("%w: stack %d has no t* counts", ErrFormat, i)
				}
			}
			if d.Mappings, err = parseMappings(sc, &line); err != nil {
				return nil, err
			}
			return d, nil
		case strings.HasPrefix(text, "@"):
			stack, err := parseStack(text[1:])
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %w", ErrFormat, line, err)
			}
			d.Records = append(d.Records, Record{Stack: stack, Counts: Counts{InuseObjects: -1}})
			cur = &d.Records[len(d.Records)-1]
		case strings.HasPrefix(text, "t*:"):
			c, err := parseCounts(text[len("t*:"):])
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %w", ErrFormat, line, err)
			}
			if cur == nil {
				d.Total, seenTotal = c, true
			} else {
				if cur.Counts.InuseObjects != -1 {
					return nil, fmt.Errorf("%w: line %d: second t* line for one stack", ErrFormat, line)
				}
				cur.Counts = c
			}
		case strings.HasPrefix(text, "t"):
			// Per-thread counts: checked for shape, not kept.
			if _, rest, ok := strings.Cut(text, ":"); !ok {
				return nil, fmt.Errorf("%w: line %d: %q", ErrFormat, line, text)
			} else if _, err := parseCounts(rest); err != nil {
				return nil, fmt.Errorf("%w: line %d: %w", ErrFormat, line, err)
			}
		default:
			return nil, fmt.Errorf("%w: line %d: unexpected %q", ErrFormat, line, text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !seenTotal {
		return nil, fmt.Errorf("%w: no t* total", ErrFormat)
	}
	return nil, fmt.Errorf("%w: no MAPPED_LIBRARIES section (truncated dump?)", ErrFormat)
}

func parseStack(s string) ([]uint64, error) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, errors.New("empty stack")
	}
	stack := make([]uint64, len(fields))
	for i, f := range fields {
		v, err := strconv.ParseUint(strings.TrimPrefix(f, "0x"), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("address %q: %w", f, err)
		}
		stack[i] = v
	}
	return stack, nil
}

// parseCounts reads " n: b [n: b]".
func parseCounts(s string) (Counts, error) {
	s = strings.NewReplacer(":", " ", "[", " ", "]", " ").Replace(s)
	f := strings.Fields(s)
	if len(f) != 4 {
		return Counts{}, fmt.Errorf("counts %q", s)
	}
	var v [4]int64
	for i := range f {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 {
			return Counts{}, fmt.Errorf("count %q", f[i])
		}
		v[i] = n
	}
	return Counts{InuseObjects: v[0], InuseBytes: v[1], AllocObjects: v[2], AllocBytes: v[3]}, nil
}

func parseMappings(sc *bufio.Scanner, line *int) ([]Mapping, error) {
	var ms []Mapping
	for sc.Scan() {
		*line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		f := strings.Fields(text)
		if len(f) < 5 {
			return nil, fmt.Errorf("%w: line %d: mapping %q", ErrFormat, *line, text)
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			return nil, fmt.Errorf("%w: line %d: mapping range %q", ErrFormat, *line, f[0])
		}
		var m Mapping
		var err1, err2, err3 error
		m.Start, err1 = strconv.ParseUint(lo, 16, 64)
		m.Limit, err2 = strconv.ParseUint(hi, 16, 64)
		m.Offset, err3 = strconv.ParseUint(f[2], 16, 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("%w: line %d: mapping %q: %w", ErrFormat, *line, text, err)
		}
		m.Perms = f[1]
		if len(f) > 5 {
			m.Path = strings.TrimSuffix(strings.Join(f[5:], " "), " (deleted)")
		}
		ms = append(ms, m)
	}
	return ms, sc.Err()
}

// Estimate is the unsampled equivalent of c, in objects and bytes (see the package doc), for a dump of sampling
// interval d.SamplePeriod.
func (d *Dump) Estimate(c Counts) (inuseObjects, inuseBytes, allocObjects, allocBytes float64) {
	inuseObjects, inuseBytes = unsample(c.InuseObjects, c.InuseBytes, d.SamplePeriod)
	allocObjects, allocBytes = unsample(c.AllocObjects, c.AllocBytes, d.SamplePeriod)
	return
}

func unsample(n, s, period int64) (float64, float64) {
	if n == 0 || s == 0 {
		return 0, 0
	}
	ratio := float64(s) / float64(n) / float64(period)
	k := 1 / (1 - math.Exp(-ratio))
	return float64(n) * k, float64(s) * k
}

// InuseVariance estimates the sampling variance of the dump's unsampled in-use bytes (the sum over its records of
// Estimate's inuseBytes): the Horvitz–Thompson variance estimate, for each sampled live object of size m seen with
// probability π = 1 − exp(−m/R), (m/π)²·(1 − π), with m a record's mean object size as in unsample. Objects far larger
// than R add nothing (always sampled); small ones add about m·R each, so for B bytes of small objects the standard
// deviation is about sqrt(R·B).
//
// For the difference of two dumps of one process, the objects live at both dumps were sampled once and their errors
// cancel: the sum of the two dumps' InuseVariance counts them as if they did not, so it errs high by their share.
func (d *Dump) InuseVariance() float64 {
	period := float64(d.SamplePeriod)
	var v float64
	for _, r := range d.Records {
		c := r.Counts
		if c.InuseObjects <= 0 || c.InuseBytes <= 0 || period <= 0 {
			continue
		}
		// Each of the n sampled objects stands for m/π bytes (unsample's rule): (m/π)²·(1 − π) each, b²·(1 − π)/n
		// in all for the record's estimate b = n·m/π.
		n := float64(c.InuseObjects)
		_, b := unsample(c.InuseObjects, c.InuseBytes, d.SamplePeriod)
		v += b * b * math.Exp(-float64(c.InuseBytes)/n/period) / n
	}
	return v
}

// LargeMinClass is jemalloc's smallest large size class on a 4 KiB-page system (4 pages). A sampled allocation
// smaller than it is served as one of it (jemalloc's "prof promotion", arena_prof_promote), and jemalloc's
// stats.allocated counts the large size while the dump records the requested one.
const LargeMinClass = 16 << 10

// PromotedBytes returns how many bytes the live sampled objects of d add to jemalloc's stats.allocated beyond their
// recorded sizes because each one smaller than largeMin was promoted to largeMin: for every record, its live sampled
// objects times largeMin minus their bytes, counted where the record's mean object size is below largeMin. A
// profiled process's native heap (stats.allocated) is its true live heap plus this figure.
func (d *Dump) PromotedBytes(largeMin int64) int64 {
	var total int64
	for _, r := range d.Records {
		c := r.Counts
		if c.InuseObjects > 0 && c.InuseBytes < c.InuseObjects*largeMin {
			total += c.InuseObjects*largeMin - c.InuseBytes
		}
	}
	return total
}
