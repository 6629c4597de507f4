package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Benchmark names the table reads.
const (
	lifecycleBench  = "BenchmarkLifecycle/"
	pairedBench     = "BenchmarkLifecycle/paired"
	sampleCostBench = "BenchmarkSampleCost/open="
	readAloneBench  = "BenchmarkSample"
	minCounts       = 5
)

// lifecycleVariants are the BenchmarkLifecycle sub-benchmarks with a row of
// their own, in table order; bare is the baseline.
var lifecycleVariants = []string{"bare", "harness-fixed", "harness-leaky"}

// Stat summarizes one metric over the counts of one benchmark. N is 0 when
// the metric is absent.
type Stat struct {
	Median, Min, Max float64
	N                int
}

// Deviation is the largest relative distance of a count from the median
// (0.08 for ±8 %).
func (s Stat) Deviation() float64 {
	if s.N == 0 || s.Median == 0 {
		return 0
	}
	return math.Max(s.Max-s.Median, s.Median-s.Min) / math.Abs(s.Median)
}

func statOf(v []float64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	v = slices.Clone(v)
	sort.Float64s(v)
	n := len(v)
	med := v[n/2]
	if n%2 == 0 {
		med = (v[n/2-1] + v[n/2]) / 2
	}
	return Stat{Median: med, Min: v[0], Max: v[n-1], N: n}
}

// Variant is one row of the lifecycle table. Times are in nanoseconds, heap
// in bytes, all per lifecycle.
type Variant struct {
	Name       string
	Time       Stat    // ns/op
	VsBare     float64 // Time.Median / bare's; 0 without bare
	CPUVsBare  float64 // CPU.Median / bare's; 0 without bare or CPU
	PerSecond  Stat    // lifecycles/s
	CPU        Stat    // cpu-ns/lifecycle
	Heap       Stat    // B/lifecycle: native heap left behind
	Natives    Stat    // natives/lifecycle: ledger objects left live
	SampleTime Stat    // sample-ns/lifecycle
}

// Paired is BenchmarkLifecycle/paired: bare and harness-fixed side by side.
type Paired struct {
	Wall, CPU               Stat // harness/bare ratios
	BareNs, HarnessNs       Stat // wall time per lifecycle
	BareCPUNs, HarnessCPUNs Stat // CPU time per lifecycle
	SampleNs                Stat // wall time in the harness's sample per lifecycle
	// WallDiff and CPUDiff are harness − bare per lifecycle, taken count by
	// count (each count's two variants ran interleaved).
	WallDiff, CPUDiff Stat
}

// SampleCost is one harness sample with OpenDBs stores open, in nanoseconds.
type SampleCost struct {
	OpenDBs                            int
	Time, Read, Ledger, RocksDB, Event Stat
}

// Verdict is the goal's outcome: harness-fixed's time over bare's, judged on
// the paired wall-time ratio when there is one (both variants under the same
// load), else on the separate variants' medians.
type Verdict struct {
	Ratio float64
	Basis string // what the ratio was measured on
	Met   bool
	// Others are the other estimates of the same ratio, for comparison, e.g.
	// "paired CPU 1.052".
	Others []string
}

// Table is everything the summary shows, computed from one run's results.
type Table struct {
	Goal       float64
	Variants   []Variant
	Paired     *Paired
	Verdict    *Verdict
	Samples    []SampleCost
	ReadAlone  Stat // measure's BenchmarkSample, ns per Sampler.Read
	BareTimeNs float64
	Warnings   []error
}

// Compute builds the table from the results of one run. It fails when there
// is no BenchmarkLifecycle result at all.
func Compute(results []Result, goal float64) (Table, error) {
	t := Table{Goal: goal}
	g := groupResults(results)
	for _, name := range g.names {
		if len(g.pkgs[name]) > 1 {
			t.Warnings = append(t.Warnings, fmt.Errorf("%s: results from %d packages are pooled", name, len(g.pkgs[name])))
		}
	}
	for _, v := range lifecycleVariants {
		name := lifecycleBench + v
		if len(g.byName[name]) == 0 {
			continue
		}
		g.counted(name)
		t.Variants = append(t.Variants, Variant{Name: v, Time: g.stat(name, "ns/op"),
			PerSecond: g.stat(name, "lifecycles/s"), CPU: g.stat(name, "cpu-ns/lifecycle"),
			Heap: g.stat(name, "B/lifecycle"), Natives: g.stat(name, "natives/lifecycle"),
			SampleTime: g.stat(name, "sample-ns/lifecycle")})
	}
	if len(g.byName[pairedBench]) > 0 {
		g.counted(pairedBench)
		t.Paired = &Paired{Wall: g.stat(pairedBench, "harness/bare"), CPU: g.stat(pairedBench, "harness/bare-cpu"),
			BareNs: g.stat(pairedBench, "bare-ns/lifecycle"), HarnessNs: g.stat(pairedBench, "harness-ns/lifecycle"),
			BareCPUNs: g.stat(pairedBench, "bare-cpu-ns/lifecycle"), HarnessCPUNs: g.stat(pairedBench, "harness-cpu-ns/lifecycle"),
			SampleNs: g.stat(pairedBench, "sample-ns/lifecycle"),
			WallDiff: g.diff(pairedBench, "harness-ns/lifecycle", "bare-ns/lifecycle"),
			CPUDiff:  g.diff(pairedBench, "harness-cpu-ns/lifecycle", "bare-cpu-ns/lifecycle")}
	}
	if len(t.Variants) == 0 && t.Paired == nil {
		return Table{}, errors.New("no BenchmarkLifecycle results")
	}
	t.judge(goal)
	t.addSampleCosts(&g)
	t.ReadAlone = g.stat(readAloneBench, "ns/op")
	if len(g.few) > 0 {
		t.Warnings = append(t.Warnings, fmt.Errorf("need ≥ %d counts for a median to mean much; have fewer for %s",
			minCounts, strings.Join(g.few, ", ")))
	}
	return t, nil
}

// grouped is one run's results by benchmark name.
type grouped struct {
	byName map[string][]Result
	pkgs   map[string]map[string]bool // the packages each name's results came from
	names  []string                   // sorted
	few    []string                   // "Name (n)" for each name counted with fewer than minCounts results
}

// groupResults groups results by benchmark name.
func groupResults(results []Result) grouped {
	g := grouped{byName: map[string][]Result{}, pkgs: map[string]map[string]bool{}}
	for _, r := range results {
		g.byName[r.Name] = append(g.byName[r.Name], r)
		if g.pkgs[r.Name] == nil {
			g.pkgs[r.Name] = map[string]bool{}
		}
		g.pkgs[r.Name][r.Pkg] = true
	}
	g.names = make([]string, 0, len(g.pkgs))
	for name := range g.pkgs {
		g.names = append(g.names, name)
	}
	sort.Strings(g.names)
	return g
}

// stat is the Stat of unit's values over name's results that report it.
func (g *grouped) stat(name, unit string) Stat {
	var v []float64
	for _, r := range g.byName[name] {
		if x, ok := r.Values[unit]; ok {
			v = append(v, x)
		}
	}
	return statOf(v)
}

// diff is the Stat of minuend - subtrahend over name's results that report
// both.
func (g *grouped) diff(name, minuend, subtrahend string) Stat {
	var v []float64
	for _, r := range g.byName[name] {
		a, ok1 := r.Values[minuend]
		b, ok2 := r.Values[subtrahend]
		if ok1 && ok2 {
			v = append(v, a-b)
		}
	}
	return statOf(v)
}

// counted notes name in g.few when it has results, but fewer than minCounts.
func (g *grouped) counted(name string) {
	if n := len(g.byName[name]); n > 0 && n < minCounts {
		g.few = append(g.few, fmt.Sprintf("%s (%d)", strings.TrimPrefix(name, "Benchmark"), n))
	}
}

// judge sets each variant's ratios to the bare variant, BareTimeNs, and the
// Verdict against goal: on the paired ratio when there is one, else on the
// separate runs' medians of harness-fixed and bare, else none.
func (t *Table) judge(goal float64) {
	bare, fixed := t.variant("bare"), t.variant("harness-fixed")
	if bare != nil && bare.Time.Median > 0 {
		t.BareTimeNs = bare.Time.Median
		for i := range t.Variants {
			v := &t.Variants[i]
			v.VsBare = v.Time.Median / bare.Time.Median
			if v.CPU.N > 0 && bare.CPU.Median > 0 {
				v.CPUVsBare = v.CPU.Median / bare.CPU.Median
			}
		}
	}
	var others []string
	paired := t.Paired != nil && t.Paired.Wall.N > 0
	if paired && t.Paired.CPU.N > 0 {
		others = append(others, fmt.Sprintf("paired CPU %.3f", t.Paired.CPU.Median))
	}
	if bare != nil && fixed != nil && fixed.VsBare > 0 {
		o := fmt.Sprintf("separate runs' medians: wall %.3f", fixed.VsBare)
		if fixed.CPUVsBare > 0 {
			o += fmt.Sprintf(", CPU %.3f", fixed.CPUVsBare)
		}
		others = append(others, o)
	}
	switch {
	case paired:
		r := t.Paired.Wall.Median
		t.Verdict = &Verdict{Ratio: r, Basis: "paired wall-time ratio", Met: r <= goal, Others: others}
		if t.BareTimeNs == 0 {
			t.BareTimeNs = t.Paired.BareNs.Median
		}
	case bare != nil && fixed != nil && fixed.VsBare > 0:
		r := fixed.VsBare
		t.Verdict = &Verdict{Ratio: r, Basis: "separate runs' median wall time", Met: r <= goal}
		if fixed.CPUVsBare > 0 {
			t.Verdict.Others = []string{fmt.Sprintf("separate runs' medians: CPU %.3f", fixed.CPUVsBare)}
		}
	}
}

// addSampleCosts adds a SampleCost for each BenchmarkSampleCost/open=N in g,
// sorted by N; a name without a number is warned about and skipped.
func (t *Table) addSampleCosts(g *grouped) {
	for _, name := range g.names {
		k, ok := strings.CutPrefix(name, sampleCostBench)
		if !ok {
			continue
		}
		open, err := strconv.Atoi(k)
		if err != nil {
			t.Warnings = append(t.Warnings, fmt.Errorf("%s: no open-DB count in the name", name))
			continue
		}
		g.counted(name)
		t.Samples = append(t.Samples, SampleCost{OpenDBs: open, Time: g.stat(name, "ns/op"),
			Read: g.stat(name, "read-ns/sample"), Ledger: g.stat(name, "ledger-ns/sample"),
			RocksDB: g.stat(name, "rocksdb-ns/sample"), Event: g.stat(name, "event-ns/sample")})
	}
	sort.Slice(t.Samples, func(i, j int) bool { return t.Samples[i].OpenDBs < t.Samples[j].OpenDBs })
}

func (t Table) variant(name string) *Variant {
	for i := range t.Variants {
		if t.Variants[i].Name == name {
			return &t.Variants[i]
		}
	}
	return nil
}
