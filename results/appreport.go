package results

import (
	"bytes"
	"fmt"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// isAppRun says whether r is an application's run (rocksleak run --app): its runs carry the app's counts.
func isAppRun(r *schema.Result) bool {
	return anyRun(r, func(run *schema.Run) bool { return run.App != nil })
}

// reportApp writes an application run's own section: its costs per task's life, per 10⁶ records and per
// punctuation, per open store, Kafka's own figures, and growth within a task's life (docs/your-application.md).
func reportApp(b *bytes.Buffer, r *schema.Result) {
	if !isAppRun(r) {
		return
	}
	fmt.Fprintf(b, "## Your application\n\n")
	fmt.Fprintf(b, "One lifecycle is one task's life under Kafka's TopologyTestDriver: the driver made (the task's "+
		"stores open, Kafka calling the config setter), the application's steps piped, the driver closed (the stores "+
		"close, as when the task migrates). The native heap per lifecycle is the fits' (95%% CI); per 10⁶ records "+
		"is the records fit's; per RocksDB open is per lifecycle over the RocksDB instances Kafka opened per lifecycle "+
		"(stores and window segments); per punctuation is per lifecycle over Kafka's punctuations per lifecycle (recorded at "+
		"metrics.recording.level DEBUG only). Per open store: the resident cost with the stores open. Kafka's figures "+
		"are its driver's metrics before the close (RocksDB's, summed over the stores; KIP-989's open iterators).\n\n")
	t := table.New("l|r|r|r|r|r|r|r|r|r|r|r", "model", "task lives", "records", "punctuations", "RocksDB opens (segments)",
		"native heap per lifecycle", "per RocksDB open", "per 10⁶ records", "per punctuation", "native heap per open store",
		"Kafka's block cache, memtables", "open iterators before close (peak)")
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.App == nil {
			continue
		}
		a := run.App
		perLC, perOpen, perRec, perPunct := "—", "—", "—", "—"
		if f, ok := run.Fits[analysis.SignalNativeHeap]; ok && f.Total != nil {
			perLC = fmtEst(f.Total.PerLifecycle, "bytes", true)
			perRec = fmtEst(f.Total.PerMillionRecords, "bytes", true)
			if a.StoreOpens > 0 && run.Lifecycles > 0 {
				perOpen = fmtEst(scaleEstimate(f.Total.PerLifecycle, float64(run.Lifecycles)/float64(a.StoreOpens)), "bytes", true)
			}
			if a.Punctuations > 0 && run.Lifecycles > 0 {
				perPunct = fmtEst(scaleEstimate(f.Total.PerLifecycle, float64(run.Lifecycles)/float64(a.Punctuations)), "bytes", true)
			}
		}
		perStore, kafka, iters := "—", "—", "—"
		if run.Resident != nil {
			perStore = units.FormatBytes(run.Resident.NativeHeapPerDB)
		}
		if w := run.WithinLifecycle; w != nil {
			kafka = units.FormatBytes(w.BlockCache) + ", " + units.FormatBytes(w.MemTables)
			iters = fmt.Sprintf("%d", w.OpenIteratorsPeak)
		}
		t.Add(m, fmt.Sprint(run.Lifecycles), fmt.Sprint(run.Records), fmt.Sprint(a.Punctuations),
			fmt.Sprintf("%d (%d)", a.StoreOpens, a.SegmentOpens), perLC, perOpen, perRec, perPunct, perStore, kafka, iters)
	}
	t.Markdown(b)
	fmt.Fprintf(b, "### Growth within a task's life\n\n")
	fmt.Fprintf(b, "The native heap from after a task's first step to before its close, both with its stores open, "+
		"per sampled lifecycle (median, distribution-free 95%% interval). Growth here that the lifecycles' own verdict "+
		"does not carry across lifecycles is released at close: an iterator left open until its store closes "+
		"(Kafka closes them then, KAFKA-4223) grows memory this way.\n\n")
	for _, m := range r.Models {
		if run := r.Runs[m]; run != nil && run.App != nil {
			fmt.Fprintf(b, "- %s\n", table.EscapeMarkdown(withinLine(m, run)))
		}
	}
	fmt.Fprintf(b, "\n")
}

// appFindings are an application run's findings beyond the verdicts: growth within a task's life, where present.
func appFindings(r *schema.Result) []string {
	var out []string
	for _, m := range r.Models {
		if run := r.Runs[m]; run != nil && run.WithinLifecycle != nil && run.WithinLifecycle.Present {
			out = append(out, withinLine(m, run))
		}
	}
	return out
}

// withinLine words one model's growth within a task's life.
func withinLine(m string, run *schema.Run) string {
	w := run.WithinLifecycle
	if w == nil {
		return m + ": no lifecycle was sampled inside (steps_per_lifecycle 1, or no lifecycle sampled)"
	}
	if !w.Present {
		return fmt.Sprintf("%s: %s.", m, w.Reason)
	}
	s := fmt.Sprintf("%s: growth within a task's life, %s per lifecycle [%s, %s]", m,
		units.FormatSignedBytes(w.Growth), units.FormatSignedBytes(w.Low), units.FormatSignedBytes(w.High))
	if w.Punctuations > 0 {
		s += fmt.Sprintf(", %s per punctuation", units.FormatSignedBytes(w.Growth/w.Punctuations))
	}
	if w.Records > 0 {
		s += fmt.Sprintf(", %s per 10⁶ records", units.FormatSignedBytes(w.Growth/w.Records*1e6))
	}
	if w.OpenIteratorsPeak > 0 {
		s += fmt.Sprintf("; Kafka's num-open-iterators before the close: %d", w.OpenIteratorsPeak)
	}
	switch analysis.VerdictWord(verdictLeak(run)) {
	case analysis.WordNoLeak:
		s += "; released at close: no leak across lifecycles"
	case analysis.WordLeak:
		s += "; not all released at close: the lifecycles leak too"
	default:
		s += "; whether the close releases it is the lifecycles' verdict, inconclusive"
	}
	return s + " (" + w.Reason + ")."
}

func verdictLeak(run *schema.Run) *bool {
	if run.Verdict == nil {
		return nil
	}
	return run.Verdict.Leak
}

// scaleEstimate multiplies an estimate and its interval by k > 0.
func scaleEstimate(e stats.Estimate, k float64) stats.Estimate {
	e.Value, e.Low, e.High, e.SE = e.Value*k, e.Low*k, e.High*k, e.SE*k
	return e
}
