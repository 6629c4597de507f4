package results

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
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

	reportHeader(&b, r)

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

	reportWarningList(&b, r)
	reportComparisons(&b, r)
	reportAttribution(&b, r)
	reportCalibration(&b, r)
	reportResident(&b, r)

	reportRetention(&b, r)
	reportProfiles(&b, r)

	reportPlots(&b)

	p("## Scenario\n\n")
	scenarioTable(r.Scenario, isAppRun(r)).Markdown(&b)

	reportOutside(&b, r)

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

func verdictWord(run *schema.Run) string {
	switch {
	case run == nil || run.Verdict == nil:
		return "not analysed"
	case run.Verdict.CacheBound != nil:
		// Beside the native heap's whole interval: the verdict is on the rest (analysis.cacheBound).
		return analysis.VerdictWord(run.Verdict.Leak) + " outside its shared cache"
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
