package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
)

// Summary renders the terminal's short version of the report: the finding
// (Finding), then one table of
// the models (counts, the change of native heap and RSS from the first to the
// last sample, the per-lifecycle slopes of native heap and RSS with
// their 95% intervals, live native objects at the end, the verdict), one line
// per model with the verdict's reason, and the attribution when there is one.
// Plain text, lines ending in "\n".
func Summary(r *schema.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", r.Scenario.Name, statusTitle(r.Status))
	if r.Status != schema.StatusComplete {
		for _, e := range r.Errors {
			fmt.Fprintf(&b, "  %s\n", e)
		}
	}
	if f := Finding(r); len(f) > 0 {
		b.WriteString("\n")
		for _, l := range f {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("\n")
	t := table.New("l|r|r|r|r|r|r|r|r|l|l", "model", "lifecycles", "failed closes", "task errors", "records lost",
		"native heap Δ", "RSS Δ", "native heap/lifecycle [95% CI]", "RSS/lifecycle [95% CI]", "live natives at end", "verdict")
	for _, m := range r.Models {
		run := r.Runs[m]
		i := func(v int64) string { return strconv.FormatInt(v, 10) }
		t.Add(m, i(run.Lifecycles), i(run.FailedCloses), i(run.TaskErrors), RecordsLostCell(run),
			units.FormatSignedBytes(float64(run.NativeHeapEnd-run.NativeHeapStart)), units.FormatSignedBytes(float64(run.RSSEnd-run.RSSStart)),
			totalSlope(run, analysis.SignalNativeHeap), totalSlope(run, analysis.SignalRSS), ledgerString(run.LedgerAtEnd),
			verdictWord(run))
	}
	t.Text(&b)
	b.WriteString("\n")
	for _, m := range r.Models {
		fmt.Fprintf(&b, "%s: %s\n", m, verdictReason(r.Runs[m]))
		summaryVerdictExtras(&b, r.Runs[m])
	}
	summaryControlled(&b, r)
	if hasRuntime(r) {
		b.WriteString("\nthe instrument's own memory in the child (its runtime's resident bytes, first → last; of its RSS at the end; " +
			"its Go heap first → last and per lifecycle; a JVM's own mallocs first → last, which the native heap's fits leave out):\n")
		for _, m := range r.Models {
			run := r.Runs[m]
			share, goHeap, ok := instrumentOf(run)
			if !ok {
				continue
			}
			if run.GoHeapStart < 0 && run.RuntimeMallocEnd > 0 {
				fmt.Fprintf(&b, "  %s: %s, %s of RSS %s; its own mallocs %s\n", m, startEnd(run.Samples, run.RuntimeStart, run.RuntimeEnd),
					share, units.FormatBytes(float64(run.RSSEnd)), startEnd(run.Samples, run.RuntimeMallocStart, run.RuntimeMallocEnd))
				continue
			}
			fmt.Fprintf(&b, "  %s: %s, %s of RSS %s; Go heap %s, %s\n", m, startEnd(run.Samples, run.RuntimeStart, run.RuntimeEnd),
				share, units.FormatBytes(float64(run.RSSEnd)), goHeap, totalSlope(run, analysis.SignalGoHeap))
		}
	}
	summaryRetention(&b, r)
	if len(r.Attribution) > 0 {
		b.WriteString("\nattribution (whole growth per lifecycle of each model, 95% CI):\n")
		attributionTable(r.Attribution).Text(&b)
	}
	return b.String()
}

// totalSlope renders the lifecycle-only fit's slope of sig with its
// interval, or "—".
func totalSlope(run *schema.Run, sig string) string {
	f, ok := run.Fits[sig]
	if !ok || f.Total == nil {
		return "—"
	}
	return fmtEst(f.Total.PerLifecycle, analysis.Describe(sig).Unit, true)
}

// RecordsLostCell is a run's records lost as a table shows it: the count, or
// "not measured" when the run did not measure it (schema.Summary.RecordsNotMeasured).
func RecordsLostCell(run *schema.Run) string {
	if run.RecordsNotMeasured != "" {
		return "not measured"
	}
	return strconv.FormatInt(run.RecordsLost, 10)
}
