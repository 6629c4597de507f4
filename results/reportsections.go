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

// reportHeader writes the report's title, the run's line and, unless the run
// completed, its status and errors.
func reportHeader(b *bytes.Buffer, r *schema.Result) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
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
}

// reportWarningList writes the Warnings section, if any.
func reportWarningList(b *bytes.Buffer, r *schema.Result) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if ws := reportWarnings(r); len(ws) > 0 {
		p("## Warnings\n\n")
		for _, w := range ws {
			p("- %s\n", table.EscapeMarkdown(w))
		}
		p("\n")
	}
}

// reportComparisons writes the Comparisons section, if any.
func reportComparisons(b *bytes.Buffer, r *schema.Result) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if len(r.Comparisons) > 0 {
		p("## Comparisons\n\n")
		p("Difference of the per-lifecycle slopes of two models (A − B), measured in independent runs, with a Welch " +
			"95%% interval (Welch–Satterthwaite degrees of freedom from each fit's effective degrees of freedom). An interval that excludes 0 is a difference the run can tell apart.\n\n")
		ct := table.New("l|l|l|r", "A", "B", "signal", "A − B per lifecycle [95% CI]")
		for _, c := range r.Comparisons {
			ct.Add(c.A, c.B, analysis.Describe(c.Signal).Name, fmtEst(c.Difference, analysis.Describe(c.Signal).Unit, true))
		}
		ct.Markdown(b)
	}
}

// reportAttribution writes the Attribution section, if any.
func reportAttribution(b *bytes.Buffer, r *schema.Result) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if len(r.Attribution) > 0 {
		p("## Attribution\n\n")
		p("The leaky model's growth split into the two leaks of KAFKA-20616, from the whole growth per lifecycle of the " +
			"four models (differences of independent runs, 95%% intervals): finally-fix carries only the offsets-options " +
			"leak, options-fix only the handle leak, whose cost per failed close is its cost per lifecycle over the " +
			"options-fix run's failed closes per lifecycle. The interaction is what the two leaks cost together beyond " +
			"their sum (≈ 0 when they add up).\n\n")
		attributionTable(r.Attribution).Markdown(b)
	}
}

// reportCalibration writes the Calibration section, if any.
func reportCalibration(b *bytes.Buffer, r *schema.Result) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if len(r.Calibration) > 0 {
		p("## Calibration\n\n")
		p("A known leak, allocated and never freed per lifecycle by the synthetic model only, measured as the " +
			"difference of its per-lifecycle growth from its control's (95%% intervals). The relative error says how " +
			"well the estimators recover it.\n\n")
		calibrationTable(r.Calibration).Markdown(b)
	}
}

// reportResident writes the section on the resident cost per open DB, if any run has one.
func reportResident(b *bytes.Buffer, r *schema.Result) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
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
		rt.Markdown(b)
	}
}

// reportOutside writes the section on memory seen from outside, if the guard saw any.
func reportOutside(b *bytes.Buffer, r *schema.Result) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	if t := outsideTable(r); t != nil {
		p("## Memory seen from outside\n\n")
		p("The parent's memory guard watches each child's RSS from outside (/proc via gopsutil, every 100 ms); " +
			"beside it, the largest RSS among the child's own samples. The outside peak is the higher when memory " +
			"grew between two samples; they agree when the difference is small against the peak.\n\n")
		t.Markdown(b)
	}
}
