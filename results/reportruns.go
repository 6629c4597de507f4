package results

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/schema"
)

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
	if slices.ContainsFunc(r.Models, func(m string) bool { return ledgerGrowthWords(r.Runs[m]) != "" }) {
		// Only where a kind grows: a result analysed before result.json kept ledger_growth has none to say.
		row("ledger growing", func(run *schema.Run) string {
			if w := ledgerGrowthWords(run); w != "" {
				return w
			}
			return "none"
		})
	}
	row("native heap first → last", func(run *schema.Run) string {
		return startEnd(run.Samples, run.NativeHeapStart, run.NativeHeapEnd)
	})
	row("RSS first → last", func(run *schema.Run) string { return startEnd(run.Samples, run.RSSStart, run.RSSEnd) })
	row("samples", func(run *schema.Run) string { return strconv.Itoa(run.Samples) })
	row("elapsed", func(run *schema.Run) string { return fmtDuration(run.ElapsedNs) })
	t.Markdown(b)

	notes := runNotes(r)
	for _, n := range notes {
		fmt.Fprintf(b, "- %s\n", table.EscapeMarkdown(n))
	}
	if len(notes) > 0 {
		b.WriteString("\n")
	}
}

// runNotes lists, under the runs table, each run's error, why its records lost
// were not measured, and its task errors.
func runNotes(r *schema.Result) []string {
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
	return notes
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
