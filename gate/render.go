package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
)

// Renderer writes a Report in one format. Renderers only format: the
// decision is in the Report.
type Renderer func(io.Writer, *Report) error

// Formats lists the output formats RendererFor knows.
func Formats() []string { return []string{"text", "json", "markdown"} }

// RendererFor returns the renderer of a format: "text" (for people), "json"
// (for machines: stable field names, raw units) or "markdown" (a CI job
// summary).
func RendererFor(format string) (Renderer, error) {
	switch format {
	case "text", "":
		return WriteText, nil
	case "json":
		return WriteJSON, nil
	case "markdown", "md":
		return WriteMarkdown, nil
	}
	return nil, fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(Formats(), ", "))
}

// WriteJSON writes the report as indented JSON; numbers are raw (bytes,
// nanoseconds, counts), units are named per check.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func sideLine(label string, s Side) string {
	line := fmt.Sprintf("%s: model %s, scenario %s, seed %d, %d lifecycles, status %s", label, s.Model, s.Scenario,
		s.Seed, s.Lifecycles, s.Status)
	if s.Allocator != "" {
		line += ", " + string(s.Allocator)
	}
	if s.Path != "" {
		line += ", " + s.Path
	}
	return line
}

// WriteText writes the report as a table for a terminal.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintln(&b, sideLine("baseline ", r.Baseline))
	fmt.Fprintln(&b, sideLine("candidate", r.Candidate))
	fmt.Fprintf(&b, "workload digest: baseline %.12s, candidate %.12s\n", r.Baseline.WorkloadDigest, r.Candidate.WorkloadDigest)
	fmt.Fprintf(&b, "rule: %s\n\n", r.Rule)
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "check\tbaseline\tcandidate [95% interval]\tlimit\toutcome\treason")
	for _, c := range r.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, baselineCell(c), candidateCell(c), limitCell(c), c.Outcome, c.Reason)
	}
	tw.Flush()
	for _, c := range r.NotApplicable {
		fmt.Fprintf(&b, "check %s: %s\n", c.Name, c.Reason)
	}
	if c := r.Controlled; c != nil {
		fmt.Fprintf(&b, "controlled verdict: %s: %s\n", c.Verdict, c.Reason)
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	fmt.Fprintf(&b, "\ngate: %s\n", verdictLine(r))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as a Markdown job summary.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	icon := map[Outcome]string{Pass: "✅", Warn: "⚠️", Fail: "❌"}
	fmt.Fprintf(&b, "### rocksleak gate: %s %s\n\n", icon[r.Outcome], verdictLine(r))
	fmt.Fprintln(&b, "| | model | scenario | seed | lifecycles | status | commit |")
	fmt.Fprintln(&b, "|---|---|---|---|---:|---|---|")
	for _, s := range []struct {
		label string
		side  Side
	}{{"baseline", r.Baseline}, {"candidate", r.Candidate}} {
		fmt.Fprintf(&b, "| %s | `%s` | `%s` | %d | %d | %s | `%.12s` |\n", s.label, s.side.Model, s.side.Scenario,
			s.side.Seed, s.side.Lifecycles, s.side.Status, s.side.GitCommit)
	}
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| check | baseline | candidate [95% interval] | limit | outcome | reason |")
	fmt.Fprintln(&b, "|---|---:|---:|---:|:---:|---|")
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s %s | %s |\n", c.Name, table.EscapeMarkdown(baselineCell(c)),
			table.EscapeMarkdown(candidateCell(c)), table.EscapeMarkdown(limitCell(c)), icon[c.Outcome], c.Outcome, table.EscapeMarkdown(c.Reason))
	}
	for i, c := range r.NotApplicable {
		if i == 0 {
			fmt.Fprintln(&b)
		}
		fmt.Fprintf(&b, "- `%s`: %s\n", c.Name, table.EscapeMarkdown(c.Reason))
	}
	if c := r.Controlled; c != nil {
		fmt.Fprintf(&b, "\n**controlled verdict: %s** — %s\n", c.Verdict, table.EscapeMarkdown(c.Reason))
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(&b)
		for _, wn := range r.Warnings {
			fmt.Fprintf(&b, "> **warning:** %s\n>\n", table.EscapeMarkdown(wn))
		}
	}
	fmt.Fprintf(&b, "\n<sub>%s</sub>\n", table.EscapeMarkdown(r.Rule))
	_, err := io.WriteString(w, b.String())
	return err
}

func verdictLine(r *Report) string {
	n := map[Outcome]int{}
	for _, c := range r.Checks {
		n[c.Outcome]++
	}
	switch r.Outcome {
	case Fail:
		return fmt.Sprintf("FAIL (%d of %d checks failed)", n[Fail], len(r.Checks))
	case Warn:
		return fmt.Sprintf("PASS with warnings (%d of %d checks inconclusive above their limit)", n[Warn], len(r.Checks))
	}
	return fmt.Sprintf("PASS (%d checks)", len(r.Checks))
}

func baselineCell(c CheckResult) string {
	if c.Baseline == nil {
		return "-"
	}
	return fmtQty(c.Baseline.Value, c.Unit)
}

func candidateCell(c CheckResult) string {
	if c.Candidate == nil {
		return "n/a"
	}
	s := fmtQty(c.Candidate.Value, c.Unit)
	if c.Candidate.Interval {
		s += fmt.Sprintf(" [%s, %s]", fmtNum(c.Candidate.Low, c.Unit), fmtNum(c.Candidate.High, c.Unit))
	}
	return s
}

func limitCell(c CheckResult) string {
	if c.Op == OpEqual {
		return "= " + fmtNum(c.Limit, c.Unit)
	}
	if c.Candidate == nil || (c.Op == OpRatio && c.Baseline == nil) {
		return "n/a"
	}
	return "≤ " + fmtNum(c.Limit, c.Unit)
}

// fmtQty formats a value with its unit for people: bytes scaled by 1024.
func fmtQty(v float64, unit string) string {
	switch unit {
	case UnitBytesPerLifecycle:
		return units.FormatBytes(v) + "/lifecycle"
	case UnitBytesPerMillionRecords:
		return units.FormatBytes(v) + "/1M records"
	case UnitFDsPerLifecycle:
		return fmt.Sprintf("%.3g FDs/lifecycle", v)
	}
	return fmtNum(v, unit)
}

// fmtNum formats a value without a per-unit suffix (for intervals and limits
// next to a value that has it).
func fmtNum(v float64, unit string) string {
	switch unit {
	case UnitBytesPerLifecycle, UnitBytesPerMillionRecords:
		return units.FormatBytes(v)
	case UnitFDsPerLifecycle:
		return fmt.Sprintf("%.3g", v)
	case UnitNanoseconds:
		if math.Abs(v) >= math.MaxInt64 {
			return fmt.Sprintf("%g ns", v)
		}
		return time.Duration(v).Round(10 * time.Microsecond).String()
	}
	return fmt.Sprintf("%.0f", v)
}
