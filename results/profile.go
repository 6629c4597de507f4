package results

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// AddDir adds every regular file under dir to files, named by its path relative to dir (slash-separated), e.g. the
// per-model folders of heap dumps and growth profiles of rocksleak run --profile.
func AddDir(files Files, dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if _, ok := files[name]; ok {
			return fmt.Errorf("%s: a run file of that name exists", name)
		}
		files[name] = b
		return nil
	})
}

// ProfileTop is how many functions a "where the growth was allocated" table lists.
const ProfileTop = 10

// ProfileGrowth returns run's profile as a table, false when run has no usable profile.
func ProfileGrowth(model string, run *schema.Run) (schema.ProfileTable, bool) {
	if run == nil || run.Profile == nil || run.Profile.Lifecycles <= 0 || run.Profile.File == "" {
		return schema.ProfileTable{}, false
	}
	p := run.Profile
	per := map[string]float64{}
	for _, f := range p.Functions {
		per[f.Function] += float64(f.Bytes) / float64(p.Lifecycles)
	}
	return profileTable(model, "", p.Lifecycles, per), true
}

// ProfileDiff returns model a's growth per lifecycle minus model b's, by function (Bytes scaled to a's lifecycles):
// what a grows by that b does not.
func ProfileDiff(a string, ra *schema.Run, b string, rb *schema.Run) (schema.ProfileTable, bool) {
	ta, okA := ProfileGrowth(a, ra)
	tb, okB := ProfileGrowth(b, rb)
	if !okA || !okB {
		return schema.ProfileTable{}, false
	}
	per := map[string]float64{}
	for _, r := range ta.Rows {
		per[r.Function] += r.BytesPerLifecycle
	}
	for _, r := range tb.Rows {
		per[r.Function] -= r.BytesPerLifecycle
	}
	return profileTable(a, b, ta.Lifecycles, per), true
}

func profileTable(model, minus string, lifecycles int64, per map[string]float64) schema.ProfileTable {
	t := schema.ProfileTable{Model: model, Minus: minus, Lifecycles: lifecycles}
	for fn, v := range per {
		t.Rows = append(t.Rows, schema.ProfileRow{Function: fn, BytesPerLifecycle: v, Bytes: v * float64(lifecycles)})
		t.TotalPerLifecycle += v
	}
	t.TotalBytes = t.TotalPerLifecycle * float64(lifecycles)
	t.Finish()
	return t
}

// ProfilePairs returns the (model, minus) pairs whose difference names a model's own leak, both profiled: a
// "+synthetic" model minus its control (the same name without the suffix), and every other model minus "fixed" under
// the same allocator suffix.
func ProfilePairs(r *schema.Result) [][2]string {
	profiled := func(m string) bool { _, ok := ProfileGrowth(m, r.Runs[m]); return ok }
	var out [][2]string
	for _, m := range r.Models {
		if !profiled(m) {
			continue
		}
		base, alloc, _ := strings.Cut(m, "@")
		if alloc != "" {
			alloc = "@" + alloc
		}
		var minus string
		switch {
		case strings.HasSuffix(base, spec.SyntheticSuffix):
			minus = strings.TrimSuffix(base, spec.SyntheticSuffix) + alloc
		case base != "fixed":
			minus = "fixed" + alloc
		}
		if minus != "" && minus != m && profiled(minus) {
			out = append(out, [2]string{m, minus})
		}
	}
	return out
}

// Agreement compares a profiled run's growth with its native heap's (ProfileAgreement). Bytes per lifecycle between
// the dumps.
type Agreement struct {
	// Profile is the profile's growth (schema.HeapProfile.GrowthBytes) per lifecycle.
	Profile float64
	// Native is the native heap's growth per lifecycle that the profile is compared with: between the two dumps
	// when the child read it there (AtDumps), else the run's native-heap slope (the lifecycle-only fit).
	Native  float64
	AtDumps bool
	// Slope is the run's native-heap slope per lifecycle (the lifecycle-only fit, failed closes included at the
	// run's rate); 0 without a native-heap fit.
	Slope float64
	// Promoted is jemalloc's promotion of sampled objects per lifecycle (schema.HeapProfile.PromotedBytes): the
	// part of the native heap's growth that only profiling adds.
	Promoted float64
	// Ratio is Profile over Native less Promoted; 0 when that is 0.
	Ratio float64
	// RatioSD is the ratio's standard deviation from the profile's sampling alone (schema.HeapProfile.GrowthSDBytes
	// over the growth it is compared with); 0 when unknown. It is the whole of the ratio's error only AtDumps.
	RatioSD float64
}

// ProfileAgreement compares a profiled run's growth per lifecycle with its native heap's growth over the same two
// dumps, less jemalloc's promotion of sampled objects: the two measure the same live heap at the same instants, so
// the ratio differs from 1 by the profile's sampling error alone. For a result made before the child read its native
// heap at the dumps, it compares with the run's native-heap slope instead, which also carries the fit's error and
// the samples outside the dumps (warm-up). ok is false without a profile, or without either figure.
func ProfileAgreement(run *schema.Run) (a Agreement, ok bool) {
	if run == nil || run.Profile == nil || run.Profile.Lifecycles <= 0 {
		return Agreement{}, false
	}
	p := run.Profile
	lcs := float64(p.Lifecycles)
	a.Profile = float64(p.GrowthBytes) / lcs
	a.Promoted = float64(p.PromotedBytes) / lcs
	f, hasFit := run.Fits["native_heap"]
	if hasFit {
		a.Slope = f.PerLifecycle.Value
		if f.Total != nil {
			a.Slope = f.Total.PerLifecycle.Value
		}
	}
	switch {
	case p.NativeHeapGrowthBytes != nil:
		a.Native, a.AtDumps = float64(*p.NativeHeapGrowthBytes)/lcs, true
	case hasFit:
		a.Native = a.Slope
	default:
		return Agreement{}, false
	}
	if c := a.Native - a.Promoted; c != 0 {
		a.Ratio = a.Profile / c
		a.RatioSD = math.Abs(p.GrowthSDBytes / lcs / c)
	}
	return a, true
}

// reportProfiles writes the "Where the growth was allocated" section when any model was profiled.
func reportProfiles(b *bytes.Buffer, r *schema.Result) {
	var tables []schema.ProfileTable
	var runs []*schema.Run
	for _, m := range r.Models {
		if t, ok := ProfileGrowth(m, r.Runs[m]); ok {
			tables = append(tables, t)
			runs = append(runs, r.Runs[m])
		}
	}
	var failed []string
	for _, m := range r.Models {
		if run := r.Runs[m]; run != nil && run.Profile != nil && run.Profile.Error != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", m, run.Profile.Error))
		}
	}
	if len(tables) == 0 && len(failed) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Where the growth was allocated\n\n")
	profileIntro(b, r)
	for _, e := range failed {
		p("> profile of %s\n\n", table.EscapeMarkdown(e))
	}
	for i, t := range tables {
		hp := runs[i].Profile
		p("### %s\n\n", t.Model)
		if hp.Profiler == schema.ProfilerNativeMem {
			reportNativeMem(b, t, hp)
			p("\n")
			profileRows(t).Markdown(b)
			continue
		}
		p("Growth %s over %d lifecycles (%d → %d), %s/lifecycle, sampled every %s; %s.\n",
			units.FormatSignedBytes(t.TotalBytes), t.Lifecycles, hp.WarmLifecycles, hp.EndLifecycles,
			units.FormatSignedBytes(t.TotalPerLifecycle), units.FormatBytes(float64(hp.SamplingIntervalBytes)), hp.File)
		if a, ok := ProfileAgreement(runs[i]); ok {
			what := "Native-heap slope of this run"
			if a.AtDumps {
				what = "Native heap between the dumps"
			}
			p("%s %s/lifecycle, of which %s/lifecycle is jemalloc's promotion of sampled objects to 16 KiB: %s/lifecycle "+
				"against the profile's %s (ratio %s", what, units.FormatSignedBytes(a.Native), units.FormatSignedBytes(a.Promoted),
				units.FormatSignedBytes(a.Native-a.Promoted), units.FormatSignedBytes(a.Profile), strconv.FormatFloat(a.Ratio, 'f', 3, 64))
			if a.RatioSD > 0 {
				p(", the profile's sampling standard deviation ±%s", strconv.FormatFloat(a.RatioSD, 'f', 3, 64))
			}
			p(").")
			if a.AtDumps && a.Slope != 0 {
				p(" The run's native-heap slope: %s/lifecycle.", units.FormatSignedBytes(a.Slope))
			}
			p("\n")
		}
		p("\n")
		profileRows(t).Markdown(b)
		if len(hp.Intervals) > 0 {
			it := table.New("r|r|r|l", "lifecycles", "growth", "per lifecycle", "top function")
			for _, iv := range hp.Intervals {
				top := "—"
				if len(iv.Functions) > 0 {
					top = fmt.Sprintf("%s (%s)", iv.Functions[0].Function, units.FormatSignedBytes(float64(iv.Functions[0].Bytes)))
				}
				n := max(1, iv.ToLifecycles-iv.FromLifecycles)
				it.Add(fmt.Sprintf("%d → %d", iv.FromLifecycles, iv.ToLifecycles), units.FormatSignedBytes(float64(iv.GrowthBytes)),
					units.FormatSignedBytes(float64(iv.GrowthBytes)/float64(n)), top)
			}
			p("Growth between consecutive dumps (--profile-every):\n\n")
			it.Markdown(b)
		}
	}
	for _, pair := range ProfilePairs(r) {
		t, _ := ProfileDiff(pair[0], r.Runs[pair[0]], pair[1], r.Runs[pair[1]])
		p("### %s minus %s\n\n", t.Model, t.Minus)
		p("Per lifecycle, %s's growth by function minus %s's: %s/lifecycle in all.\n\n", t.Model, t.Minus,
			units.FormatSignedBytes(t.TotalPerLifecycle))
		profileRows(t).Markdown(b)
	}
}

// profileIntro writes what the section's profiles are: the JVM engine's nativemem recordings, the Go engine's
// jemalloc dumps, or both.
func profileIntro(b *bytes.Buffer, r *schema.Result) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	nativeMem, tail, jemalloc := profilers(r)
	if nativeMem {
		p(nativeMemIntro, tail)
	}
	if jemalloc {
		who := "Each model"
		if nativeMem {
			who = "Each Go engine model"
		}
		p("%s ran under jemalloc with heap profiling (rocksleak run --profile). The child dumped its sampled "+
			"live heap at the end of its warm-up (the first 20%% of its stop condition) and at its end; the growth "+
			"between the dumps is attributed to the allocating function (the innermost frame that is not the allocator), "+
			"unsampled as jeprof does. Its pprof profile is *<model>/growth.pb.gz* (`go tool pprof -top` or `-http`).\n\n", who)
	}
}

func profileRows(t schema.ProfileTable) *table.Table {
	tb := table.New("l|r|r|r", "function", "bytes", "per lifecycle", "share")
	for _, r := range t.Rows[:min(ProfileTop, len(t.Rows))] {
		tb.Add(r.Function, units.FormatSignedBytes(r.Bytes), units.FormatSignedBytes(r.BytesPerLifecycle), fmtSignedPercent(r.Share))
	}
	return tb
}
