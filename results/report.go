package results

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// The plots ReportMarkdown links to; Plots renders them. The signals' plots
// are declared in analysis' registry (SignalInfo.Plot); TestSignalPlots checks
// these names against it.
const (
	PlotNativeHeap = "native_heap.png"
	PlotRSS        = "rss.png"
	PlotLedger     = "ledger.png"
)

// ReportMarkdown renders r as report.md: a reader's account of the run in
// tables, with verdicts first and provenance last. It only formats what r
// holds (Analyze has filled the fits, verdicts, comparisons and attribution);
// bytes are scaled by 1024 for people, result.json keeps the raw numbers. The
// report links to the PNGs of Plots by their file names, as siblings.
func ReportMarkdown(r *schema.Result) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("# rocksleak report: %s — %s\n\n", r.Scenario.Name, statusTitle(r.Status))
	if d := strings.TrimSpace(r.Scenario.Description); d != "" {
		p("%s\n\n", d)
	}
	p("Models %s · RocksDB %s · %s · %s · started %s\n\n", strings.Join(r.Models, ", "),
		orDash(r.Provenance.RocksDBVersion), orDash(r.Provenance.Host), orDash(string(r.Provenance.Allocator)),
		orDash(r.Provenance.StartTime))
	switch r.Status {
	case schema.StatusInterrupted:
		p("> **INTERRUPTED.** The run was stopped before every model finished: the numbers below come from partial runs, and a model that did not run is missing.\n")
	case schema.StatusFailed:
		p("> **FAILED.** At least one model's run ended in an error: its numbers are partial or missing.\n")
	case schema.StatusComplete:
	default:
		p("> **Status %q** is not one this report knows.\n", r.Status)
	}
	if r.Status != schema.StatusComplete {
		for _, e := range r.Errors {
			p(">\n> - %s\n", table.EscapeMarkdown(e))
		}
		p("\n")
	}

	if f := Finding(r); len(f) > 0 {
		p("## Finding\n\n")
		for _, l := range f {
			p("- %s\n", table.EscapeMarkdown(l))
		}
		p("\n")
	}
	p("## How to read this\n\n")
	p("%s\n\n", howToRead(r))

	p("## Verdicts\n\n")
	verdictTable(r).Markdown(&b)
	reportSequential(&b, r)
	reportControlled(&b, r)
	reportApp(&b, r)

	p("## Runs\n\n")
	reportRuns(&b, r)
	reportOwners(&b, r)

	p("## Fits\n\n")
	p("Slopes with their 95%% interval. *per lifecycle*: Y ~ 1 + lifecycles, the whole growth per lifecycle at this run's " +
		"failure rate (the verdicts use it). *two-counter*: Y ~ 1 + lifecycles + failed closes, the cost of a lifecycle and of " +
		"a failed close separately. *per 10⁶ records*: Y ~ 1 + records. R², samples, warm-up, Theil–Sen (a robust slope " +
		"per lifecycle) and Mann–Kendall (trend test, autocorrelation-corrected) are those of the lifecycle-only fit.\n\n")
	for _, sig := range analysis.Signals() {
		reportFit(&b, r, sig)
	}

	if ws := reportWarnings(r); len(ws) > 0 {
		p("## Warnings\n\n")
		for _, w := range ws {
			p("- %s\n", table.EscapeMarkdown(w))
		}
		p("\n")
	}

	if len(r.Comparisons) > 0 {
		p("## Comparisons\n\n")
		p("Difference of the per-lifecycle slopes of two models (A − B), measured in independent runs, with a Welch " +
			"95%% interval (Welch–Satterthwaite degrees of freedom from each fit's effective degrees of freedom). An interval that excludes 0 is a difference the run can tell apart.\n\n")
		ct := table.New("l|l|l|r", "A", "B", "signal", "A − B per lifecycle [95% CI]")
		for _, c := range r.Comparisons {
			ct.Add(c.A, c.B, analysis.Describe(c.Signal).Name, fmtEst(c.Difference, analysis.Describe(c.Signal).Unit, true))
		}
		ct.Markdown(&b)
	}

	if len(r.Attribution) > 0 {
		p("## Attribution\n\n")
		p("The leaky model's growth split into the two leaks of KAFKA-20616, from the whole growth per lifecycle of the " +
			"four models (differences of independent runs, 95%% intervals): finally-fix carries only the offsets-options " +
			"leak, options-fix only the handle leak, whose cost per failed close is its cost per lifecycle over the " +
			"options-fix run's failed closes per lifecycle. The interaction is what the two leaks cost together beyond " +
			"their sum (≈ 0 when they add up).\n\n")
		attributionTable(r.Attribution).Markdown(&b)
	}

	if len(r.Calibration) > 0 {
		p("## Calibration\n\n")
		p("A known leak, allocated and never freed per lifecycle by the synthetic model only, measured as the " +
			"difference of its per-lifecycle growth from its control's (95%% intervals). The relative error says how " +
			"well the estimators recover it.\n\n")
		calibrationTable(r.Calibration).Markdown(&b)
	}

	if hasResident(r) {
		p("## Resident cost per open DB\n\n")
		p("What one open store instance (a kv store or one window segment) costs at steady state: the median over the " +
			"second half of the samples of (signal − its value before anything was opened) / open DBs. Under a leaky " +
			"model it includes what leaked so far: read it from a model that does not leak.\n\n")
		rt := table.New("l|r|r|r", "model", "native heap per DB", "RSS per DB", "open DBs (median)")
		for _, m := range r.Models {
			if res := r.Runs[m].Resident; res != nil {
				rt.Add(m, units.FormatBytes(res.NativeHeapPerDB), units.FormatBytes(res.RSSPerDB), fmtCount(res.OpenDBs))
			}
		}
		rt.Markdown(&b)
	}

	reportRetention(&b, r)
	reportProfiles(&b, r)

	reportPlots(&b)

	p("## Scenario\n\n")
	scenarioTable(r.Scenario).Markdown(&b)

	if t := outsideTable(r); t != nil {
		p("## Memory seen from outside\n\n")
		p("The parent's memory guard watches each child's RSS from outside (/proc via gopsutil, every 100 ms); " +
			"beside it, the largest RSS among the child's own samples. The outside peak is the higher when memory " +
			"grew between two samples; they agree when the difference is small against the peak.\n\n")
		t.Markdown(&b)
	}

	p("## Provenance\n\n")
	provenanceTable(r.Provenance).Markdown(&b)
	return b.Bytes()
}

func statusTitle(s string) string {
	switch s {
	case schema.StatusComplete:
		return "complete"
	case "":
		return "UNKNOWN STATUS"
	}
	return strings.ToUpper(s)
}

func reportRuns(b *bytes.Buffer, r *schema.Result) {
	align := "l"
	header := []string{""}
	for _, m := range r.Models {
		align += "|r"
		header = append(header, m)
	}
	t := table.New(align, header...)
	row := func(name string, f func(run *schema.Run) string) {
		cells := []string{name}
		for _, m := range r.Models {
			cells = append(cells, f(r.Runs[m]))
		}
		t.Add(cells...)
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	row("outcome", func(run *schema.Run) string {
		switch {
		case run.Error != "":
			return "**error**"
		case run.Interrupted:
			return "**interrupted**"
		}
		return "finished"
	})
	row("lifecycles", func(run *schema.Run) string { return i(run.Lifecycles) })
	row("failed closes", func(run *schema.Run) string { return i(run.FailedCloses) })
	row("init failures", func(run *schema.Run) string { return i(run.InitFailures) })
	row("records written", func(run *schema.Run) string { return i(run.Records) })
	row("task errors", func(run *schema.Run) string { return i(run.TaskErrors) })
	row("records lost / verified", func(run *schema.Run) string {
		if run.RecordsNotMeasured != "" {
			return "not measured"
		}
		return i(run.RecordsLost) + " / " + i(run.Verified)
	})
	if anyRun(r, func(run *schema.Run) bool { return run.RecordsUnavailable+run.RecordsWriteFailed > 0 }) {
		// What a fault cost that Kafka would not lose (schema.Summary.RecordsLost).
		row("not lost: unavailable / write failed", func(run *schema.Run) string {
			return i(run.RecordsUnavailable) + " / " + i(run.RecordsWriteFailed)
		})
	}
	row("restores (count, p50, max)", func(run *schema.Run) string {
		if run.Restore.Count == 0 {
			return "0"
		}
		return fmt.Sprintf("%d, %s, %s", run.Restore.Count, fmtDuration(run.Restore.P50Ns), fmtDuration(run.Restore.MaxNs))
	})
	row("rebalances", func(run *schema.Run) string { return i(run.Rebalances) })
	row("pinned DBs", func(run *schema.Run) string { return i(run.PinnedDBs) })
	row("released late", func(run *schema.Run) string { return ledgerString(run.ReleasedLate) })
	row("ledger at end", func(run *schema.Run) string { return ledgerString(run.LedgerAtEnd) })
	row("native heap first → last", func(run *schema.Run) string {
		return startEnd(run.Samples, run.NativeHeapStart, run.NativeHeapEnd)
	})
	row("RSS first → last", func(run *schema.Run) string { return startEnd(run.Samples, run.RSSStart, run.RSSEnd) })
	row("samples", func(run *schema.Run) string { return strconv.Itoa(run.Samples) })
	row("elapsed", func(run *schema.Run) string { return fmtDuration(run.ElapsedNs) })
	t.Markdown(b)

	var notes []string
	for _, m := range r.Models {
		run := r.Runs[m]
		if run.Error != "" {
			notes = append(notes, fmt.Sprintf("%s: error: %s", m, run.Error))
		}
		if run.RecordsNotMeasured != "" {
			notes = append(notes, fmt.Sprintf("%s: records lost not measured: %s", m, run.RecordsNotMeasured))
		}
		for i, e := range run.TaskErrorList {
			times := ""
			if i < len(run.TaskErrorCounts) && run.TaskErrorCounts[i] > 1 {
				times = fmt.Sprintf(" (×%d)", run.TaskErrorCounts[i])
			}
			notes = append(notes, fmt.Sprintf("%s: task error%s: %s", m, times, e))
		}
	}
	for _, n := range notes {
		fmt.Fprintf(b, "- %s\n", table.EscapeMarkdown(n))
	}
	if len(notes) > 0 {
		b.WriteString("\n")
	}
}

// hasRuntime reports whether some model's samples carry the instrument's runtime bytes.
func hasRuntime(r *schema.Result) bool {
	for _, m := range r.Models {
		if run := r.Runs[m]; run.Samples > 0 && run.RuntimeStart > 0 && run.RuntimeEnd > 0 {
			return true
		}
	}
	return false
}

// reportOwners renders "RSS by owner": each model's RSS at the first and the last sample split into what the
// instrument's runtime held and what the code under test held (the RSS the fits and verdicts read), and the
// instrument's Go heap with its slope. Nothing for results without the runtime's bytes.
func reportOwners(b *bytes.Buffer, r *schema.Result) {
	if !hasRuntime(r) {
		return
	}
	fmt.Fprintf(b, "## RSS by owner\n\n")
	fmt.Fprintf(b, "Each model's RSS at its first and last sample, split by who holds it. *The instrument* is the "+
		"child's own runtime: in the Go engine the Go runtime's mapped memory less what it returned to the OS (its heap, "+
		"stacks and metadata; an upper bound on its resident share), in the JVM engine the Java heap committed, "+
		"metaspace and code cache. *The code under test* is the rest: the C allocator's heap and what it retains, "+
		"RocksDB's own mappings, the libraries' code. The RSS fits and verdicts read the code's RSS. The instrument's Go "+
		"heap (the Go child's objects: samples, the transient view of a changelog) is part of its runtime; its slope is "+
		"the Go heap fit's.\n\n")
	t := table.New("l|r|r|r|r|r|r", "model", "RSS first → last", "instrument first → last", "code under test first → last",
		"instrument's share of RSS at the end", "instrument's Go heap first → last", "Go heap per lifecycle [95% CI]")
	for _, m := range r.Models {
		run := r.Runs[m]
		share, goHeap, ok := instrumentOf(run)
		if !ok {
			t.Add(m, startEnd(run.Samples, run.RSSStart, run.RSSEnd), "—", "—", "—", "—", "—")
			continue
		}
		t.Add(m, startEnd(run.Samples, run.RSSStart, run.RSSEnd), startEnd(run.Samples, run.RuntimeStart, run.RuntimeEnd),
			startEnd(run.Samples, run.RSSStart-run.RuntimeStart, run.RSSEnd-run.RuntimeEnd), share, goHeap,
			totalSlope(run, analysis.SignalGoHeap))
	}
	t.Markdown(b)
	reportNativeOwners(b, r)
}

// reportNativeOwners renders the native heap split the same way, for the runs whose runtime's own mallocs were read
// (a JVM child's, by Native Memory Tracking): the C allocator's bytes in use, the JVM's own share of them (its
// compiler arenas, symbol tables, GC and NIO buffers) and the code under test's, which the fits and verdicts read.
// Nothing when no run has them (the Go runtime does not use the C allocator).
func reportNativeOwners(b *bytes.Buffer, r *schema.Result) {
	t := table.New("l|r|r|r", "model", "native heap first → last", "the JVM's own mallocs first → last",
		"code under test first → last")
	rows := 0
	for _, m := range r.Models {
		run := r.Runs[m]
		if run.Samples == 0 || run.RuntimeMallocEnd <= 0 {
			continue
		}
		t.Add(m, startEnd(run.Samples, run.NativeHeapStart, run.NativeHeapEnd),
			startEnd(run.Samples, run.RuntimeMallocStart, run.RuntimeMallocEnd),
			startEnd(run.Samples, run.NativeHeapStart-run.RuntimeMallocStart, run.NativeHeapEnd-run.RuntimeMallocEnd))
		rows++
	}
	if rows == 0 {
		return
	}
	fmt.Fprintf(b, "\nThe native heap, split the same way for the JVM engine: the C allocator's bytes in use include the "+
		"JVM's own mallocs (Native Memory Tracking's malloc total: the JIT compiler's arenas, symbol tables, GC and NIO "+
		"buffers), which swing by megabytes as methods compile. The native-heap fits and verdicts read the code's share.\n\n")
	t.Markdown(b)
}

// instrumentOf renders a run's instrument figures: its runtime's share of RSS at the end and its Go heap first →
// last ("—" when not read); ok is false when the run has no runtime bytes.
func instrumentOf(run *schema.Run) (share, goHeap string, ok bool) {
	if run.Samples == 0 || run.RuntimeStart <= 0 || run.RuntimeEnd <= 0 {
		return "", "", false
	}
	share, goHeap = "—", "—"
	if run.RSSEnd > 0 {
		share = fmtPercent(float64(run.RuntimeEnd) / float64(run.RSSEnd))
	}
	if run.GoHeapStart >= 0 && run.GoHeapEnd >= 0 {
		goHeap = startEnd(run.Samples, run.GoHeapStart, run.GoHeapEnd)
	}
	return share, goHeap, true
}

// fitTitleNote is what a fit's heading adds to its signal's title: for the native heap, when a run read its
// runtime's own mallocs (a JVM child's runtime_malloc), that the fit reads the heap less those, as
// analysis.SignalValue does; otherwise nothing.
func fitTitleNote(r *schema.Result, sig string) string {
	if sig != analysis.SignalNativeHeap {
		return ""
	}
	for _, m := range r.Models {
		if run := r.Runs[m]; run != nil && run.RuntimeMallocEnd > 0 {
			return ", less the JVM's own mallocs where read (runtime_malloc)"
		}
	}
	return ""
}

func startEnd(samples int, start, end int64) string {
	if samples == 0 {
		return "—"
	}
	return fmt.Sprintf("%s → %s (%s)", units.FormatBytes(float64(start)), units.FormatBytes(float64(end)), units.FormatSignedBytes(float64(end-start)))
}

func reportFit(b *bytes.Buffer, r *schema.Result, sig string) {
	unit := analysis.Describe(sig).Unit
	fmt.Fprintf(b, "### %s%s\n\n", analysis.Describe(sig).Title, fitTitleNote(r, sig))
	t := table.New("l|r|r|r|r|r|r|l|r|r", "model", "per lifecycle [95% CI]", "two-counter: per lifecycle [95% CI]",
		"two-counter: per failed close [95% CI]", "per 10⁶ records [95% CI]", "R²", "used / cut",
		"warm-up", "Theil–Sen", "Mann–Kendall p")
	for _, m := range r.Models {
		f, ok := r.Runs[m].Fits[sig]
		if !ok {
			t.Add(m, "not analysed", "", "", "", "", "", "", "", "")
			continue
		}
		tot := f.Total
		if tot == nil {
			// A result without the lifecycle-only fit: show what there is.
			t.Add(m, "—", fmtEst(f.PerLifecycle, unit, true), fmtEst(f.PerFailedClose, unit, true),
				fmtEst(f.PerMillionRecords, unit, true), fmtR2(f.R2), usedCut(f), warmupCell(f),
				fmtSignedQty(f.TheilSen, unit), fmtP(f.MannKendallP))
			continue
		}
		uc := usedCut(*tot)
		if f.SamplesUsed != tot.SamplesUsed || f.WarmupSamples != tot.WarmupSamples {
			uc += " (two-counter " + usedCut(f) + ")"
		}
		t.Add(m, fmtEst(tot.PerLifecycle, unit, true), fmtEst(f.PerLifecycle, unit, true),
			fmtEst(f.PerFailedClose, unit, true), fmtEst(tot.PerMillionRecords, unit, true), fmtR2(tot.R2), uc,
			warmupCell(*tot), fmtSignedQty(tot.TheilSen, unit), fmtP(tot.MannKendallP))
	}
	t.Markdown(b)
	var per []string
	for _, m := range r.Models {
		if f, ok := r.Runs[m].Fits[sig]; ok && f.Total != nil && f.Total.PerRestoredRecord != nil {
			per = append(per, m+" "+fmtEst(*f.Total.PerRestoredRecord, unit, true))
		}
	}
	if len(per) > 0 {
		fmt.Fprintf(b, "Restores: these fits also take the changelog records replayed by restores as a regressor "+
			"(a restore replays its changelog through dozens of segment lifecycles in one sample interval, at a cost per "+
			"lifecycle unlike the ordinary ones'), so the slopes per lifecycle above are at a given amount of restore work. "+
			"%s per restored record beyond that [95%% CI], lifecycle-only fit: %s.\n\n", analysis.Describe(sig).Name, strings.Join(per, "; "))
	}
}

func usedCut(f schema.SignalFit) string {
	return fmt.Sprintf("%d / %d", f.SamplesUsed, f.WarmupSamples)
}

func warmupCell(f schema.SignalFit) string {
	s := f.WarmupReason
	if f.Step != nil {
		s += fmt.Sprintf("; level shift of %s at sample %d", fmtSignedQty(f.Step.Size, f.Unit), f.Step.Index)
	}
	return s
}

// reportWarnings lists every warning of the run, model by model, without
// repeats: the lifecycle-only fits' (which the verdicts pass on), those only
// the two-counter fits give, and the verdicts' own.
func reportWarnings(r *schema.Result) []string {
	var out []string
	for _, m := range r.Models {
		run := r.Runs[m]
		seen := map[string]bool{}
		var ws []string
		add := func(w string) {
			if !seen[w] {
				seen[w] = true
				ws = append(ws, w)
			}
		}
		for _, sig := range analysis.Signals() {
			f, ok := run.Fits[sig]
			if !ok {
				continue
			}
			name := analysis.Describe(sig).Name
			if f.Total != nil {
				for _, w := range f.Total.Warnings {
					add(name + ": " + w)
				}
			}
			for _, w := range f.Warnings {
				if !seen[name+": "+w] {
					add(name + " (two-counter fit): " + w)
				}
			}
		}
		if run.Verdict != nil {
			for _, w := range run.Verdict.Warnings {
				add(w)
			}
		}
		for _, w := range ws {
			out = append(out, m+": "+w)
		}
	}
	return out
}

// attributionTable has one row per quantity and one column per signal.
func attributionTable(as []schema.Attribution) *table.Table {
	align := "l"
	header := []string{""}
	for _, a := range as {
		align += "|r"
		header = append(header, analysis.Describe(a.Signal).Name)
	}
	t := table.New(align, header...)
	row := func(name string, f func(a schema.Attribution) string) {
		cells := []string{name}
		for _, a := range as {
			cells = append(cells, f(a))
		}
		t.Add(cells...)
	}
	row("offsets-options leak per lifecycle (finally-fix − fixed)", func(a schema.Attribution) string {
		return fmtEst(a.OptionsLeakPerLifecycle, analysis.Describe(a.Signal).Unit, true)
	})
	row("handle leak per lifecycle (options-fix − fixed)", func(a schema.Attribution) string {
		return fmtEst(a.HandleLeakPerLifecycle, analysis.Describe(a.Signal).Unit, true)
	})
	row("handle leak per failed close (options-fix − fixed)", func(a schema.Attribution) string {
		return fmtEst(a.HandleLeakPerFailedClose, analysis.Describe(a.Signal).Unit, true)
	})
	row("leaky total per lifecycle (leaky − fixed)", func(a schema.Attribution) string {
		return fmtEst(a.LeakyTotalPerLifecycle, analysis.Describe(a.Signal).Unit, true)
	})
	row("interaction per lifecycle", func(a schema.Attribution) string {
		if a.InteractionInterval.Valid {
			return fmtEst(a.InteractionInterval, analysis.Describe(a.Signal).Unit, true)
		}
		return fmtSignedQty(a.Interaction, analysis.Describe(a.Signal).Unit)
	})
	return t
}

func calibrationTable(cs []schema.Calibration) *table.Table {
	t := table.New("l|l|r|r|r|r|r", "model", "control", "known per lifecycle", "native heap [95% CI]", "error",
		"RSS [95% CI]", "error")
	for _, c := range cs {
		t.Add(c.Model, c.Control, units.FormatBytes(c.KnownPerLifecycle), fmtEst(c.NativeHeap, "bytes", true),
			fmtSignedPercent(c.NativeHeapError), fmtEst(c.RSS, "bytes", true), fmtSignedPercent(c.RSSError))
	}
	return t
}

func hasResident(r *schema.Result) bool {
	for _, m := range r.Models {
		if r.Runs[m].Resident != nil {
			return true
		}
	}
	return false
}

func scenarioTable(s scenarios.Scenario) *table.Table {
	t := table.New("l|l", "", "")
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	store := fmt.Sprintf("%s, %s × %s per task", s.Store, plural(s.Tasks, "task"), plural(s.StoresPerTask, "store"))
	if s.Store == scenarios.StoreWindow {
		store += fmt.Sprintf(", retention %d ms, segment interval %d ms, %d live segments per store",
			s.RetentionMs, s.SegmentInterval(), s.LiveSegments())
	}
	t.Add("name", s.Name)
	t.Add("models", strings.Join(s.Models, ", "))
	t.Add("store", store)
	t.Add("workload", fmt.Sprintf("%s of %d B per store per step of %d ms, %s, %s",
		plural(s.RecordsPerStep, "record"), s.ValueBytes, s.StepMs, plural(s.KeySpread, "key"),
		plural(s.ChangelogPartitions, "changelog partition")))
	t.Add("failures", fmt.Sprintf("close %s %s, cascade %s; init %s; exactly-once %s; leak semantics %s",
		fmtPercent(s.CloseFailureRate), s.CloseFailureKind, yesNo(s.Cascade), fmtPercent(s.InitFailureRate),
		yesNo(s.ExactlyOnce), s.LeakSemantics))
	reb := "never"
	if s.RebalanceEverySteps > 0 {
		reb = fmt.Sprintf("every %d steps, %s of tasks", s.RebalanceEverySteps, fmtPercent(s.RebalanceTasks))
	}
	t.Add("rebalances", reb)
	var stop []string
	if s.Lifecycles > 0 {
		stop = append(stop, fmt.Sprintf("%d lifecycles", s.Lifecycles))
	}
	if s.Duration > 0 {
		stop = append(stop, s.Duration.String())
	}
	t.Add("stop after", orDash(strings.Join(stop, " or ")))
	t.Add("sampling", fmt.Sprintf("every %s and every %d ms", plural(s.SampleEveryLifecycles, "lifecycle"), s.SampleIntervalMs))
	if s.SyntheticLeakBytes != 0 || s.RestoreScratchBytes != 0 {
		t.Add("calibration", fmt.Sprintf("synthetic leak %s per lifecycle, restore scratch %s",
			units.FormatBytes(float64(s.SyntheticLeakBytes)), units.FormatBytes(float64(s.RestoreScratchBytes))))
	}
	t.Add("seed", strconv.FormatInt(s.Seed, 10))
	return t
}

// plural renders "1 task", "4 tasks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func provenanceTable(p schema.Provenance) *table.Table {
	t := table.New("l|l", "", "")
	t.Add("RocksDB", orDash(p.RocksDBVersion))
	t.Add("grocksdb", orDash(p.GrocksdbVersion))
	t.Add("Go", orDash(p.GoVersion))
	t.Add("commit", orDash(p.GitCommit))
	t.Add("host", fmt.Sprintf("%s (%s/%s, %d CPUs)", orDash(p.Host), p.OS, p.Arch, p.CPUs))
	if m := p.Machine; m != nil {
		machineRows(t, m)
	}
	t.Add("allocator", orDash(string(p.Allocator)))
	t.Add("seed", strconv.FormatInt(p.Seed, 10))
	t.Add("scenario digest", "`"+orDash(p.ScenarioDigest)+"`")
	t.Add("started", orDash(p.StartTime))
	t.Add("ended", orDash(p.EndTime))
	if p.Command != "" {
		t.Add("command", "`"+p.Command+"`")
	}
	return t
}

// outsideTable compares each run's outside RSS peak with its own samples'
// peak; nil when no run was watched from outside (results from before the guard).
func outsideTable(r *schema.Result) *table.Table {
	t := table.New("l|r|r|r|l", "model", "outside RSS peak", "own samples' RSS peak", "difference", "guard")
	rows := 0
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.OutsideRSSPeak == 0 {
			continue
		}
		diff := "-"
		if run.OutsideRSSPeak > 0 {
			d := float64(run.OutsideRSSPeak - run.RSSPeak)
			diff = fmt.Sprintf("%s (%.1f%%)", units.FormatSignedBytes(d), 100*d/float64(run.OutsideRSSPeak))
		}
		guard := "not stopped"
		if run.StoppedByGuard != "" {
			guard = "stopped"
		}
		t.Add(m, units.FormatBytes(float64(run.OutsideRSSPeak)), units.FormatBytes(float64(run.RSSPeak)), diff, guard)
		rows++
	}
	if rows == 0 {
		return nil
	}
	return t
}

// machineRows adds the host's facts to the provenance table.
func machineRows(t *table.Table, m *schema.Machine) {
	t.Add("CPU", fmt.Sprintf("%s, %d logical CPUs", orDash(m.CPUModel), m.LogicalCPUs))
	t.Add("memory", fmt.Sprintf("%s total, %s available at the start", units.FormatBytes(float64(m.MemTotal)),
		units.FormatBytes(float64(m.MemAvailable))))
	t.Add("kernel", fmt.Sprintf("%s (%s)", orDash(m.Kernel), orDash(m.Platform)))
	mem, cpus := "none", "none"
	if m.CgroupMemoryMax > 0 {
		mem = units.FormatBytes(float64(m.CgroupMemoryMax))
	}
	if m.CgroupCPUs > 0 {
		cpus = strconv.FormatFloat(m.CgroupCPUs, 'f', -1, 64) + " CPUs"
	}
	t.Add("cgroup limits", fmt.Sprintf("memory %s, CPU %s", mem, cpus))
}

// Verdicts.

func verdictWord(run *schema.Run) string {
	switch {
	case run == nil || run.Verdict == nil:
		return "not analysed"
	}
	return analysis.VerdictWord(run.Verdict.Leak)
}

func verdictReason(run *schema.Run) string {
	switch {
	case run == nil:
		return "no run"
	case run.Verdict != nil:
		return run.Verdict.Reason
	case run.Error != "":
		return "no samples to analyse: " + run.Error
	}
	return "no samples to analyse"
}

// Numbers for people.

// fmtCount renders a count (or a slope of counts) with three significant
// digits and no exponent, whole numbers as they are: "67", "1234", "12.5",
// "0.969", "0.00415".
func fmtCount(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	a := math.Abs(v)
	switch {
	case a < 0.0005:
		return "0"
	case a >= 99.95 || math.Abs(v-math.Round(v)) < 1e-9*a:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	// Round to three significant digits first, so that 9.996 becomes 10.0.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	digits := 2 - int(math.Floor(math.Log10(math.Abs(r))))
	return strconv.FormatFloat(r, 'f', max(digits, 0), 64)
}

// fmtQty renders v in unit ("bytes" or "fds").
func fmtQty(v float64, unit string) string {
	if unit == "fds" {
		return fmtCount(v) + " FDs"
	}
	return units.FormatBytes(v)
}

// fmtSignedQty is fmtQty with an explicit sign.
func fmtSignedQty(v float64, unit string) string {
	if v >= 0 {
		return "+" + fmtQty(v, unit)
	}
	return fmtQty(v, unit)
}

// fmtEst renders an estimate with its interval: "+11.2 KiB [10.9 KiB, 11.5 KiB]";
// without an interval "+11.2 KiB (no CI)", or "—" when there is nothing.
func fmtEst(e stats.Estimate, unit string, signed bool) string {
	val := fmtQty(e.Value, unit)
	if signed {
		val = fmtSignedQty(e.Value, unit)
	}
	if !e.Valid {
		if e.Value == 0 {
			return "—"
		}
		return val + " (no CI)"
	}
	return fmt.Sprintf("%s [%s, %s]", val, fmtQty(e.Low, unit), fmtQty(e.High, unit))
}

func fmtR2(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// fmtP renders a p-value: "< 0.0001", "0.032", "0.80".
func fmtP(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

func fmtPercent(f float64) string { return fmtCount(100*f) + "%" }

func fmtSignedPercent(f float64) string {
	if f >= 0 {
		return "+" + fmtPercent(f)
	}
	return fmtPercent(f)
}

// fmtDuration renders nanoseconds with three significant digits: "37.7 ms".
func fmtDuration(ns int64) string {
	v := float64(ns)
	switch a := math.Abs(v); {
	case a >= 1e9:
		return fmtCount(v/1e9) + " s"
	case a >= 1e6:
		return fmtCount(v/1e6) + " ms"
	case a >= 1e3:
		return fmtCount(v/1e3) + " µs"
	}
	return strconv.FormatInt(ns, 10) + " ns"
}

// ledgerString renders live counts by kind: "cf_handle=8 db=4", or "none".
func ledgerString(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "none"
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// anyRun reports whether pred holds for one of r's runs.
func anyRun(r *schema.Result, pred func(*schema.Run) bool) bool {
	for _, run := range r.Runs {
		if run != nil && pred(run) {
			return true
		}
	}
	return false
}
