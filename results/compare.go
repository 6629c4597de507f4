package results

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// ErrNothingToCompare is returned by CompareMarkdown and CompareText when the
// two results have no model in common.
var ErrNothingToCompare = errors.New("no model in common")

// comparison is what CompareMarkdown and CompareText render: the models of
// both results, model by model, in A's run order.
type comparison struct {
	warnings []string
	models   []modelComparison
	onlyA    []string
	onlyB    []string
}

type modelComparison struct {
	model string
	a, b  *schema.Run
	// slopes by signal (native heap, RSS): the lifecycle-only fits of A and
	// of B, and B − A (analysis.Difference with A, the first file, as the
	// baseline).
	slopes []slopeComparison
}

type slopeComparison struct {
	signal string
	a, b   *stats.Estimate // nil when the run has no fit
	diff   *stats.Estimate // nil unless both have one
}

func compare(a, b *schema.Result) (*comparison, error) {
	c := &comparison{}
	for _, m := range a.Models {
		ra, rb := a.Runs[m], b.Runs[m]
		if ra == nil || rb == nil {
			c.onlyA = append(c.onlyA, m)
			continue
		}
		mc := modelComparison{model: m, a: ra, b: rb}
		for _, sig := range []string{analysis.SignalNativeHeap, analysis.SignalRSS} {
			sc := slopeComparison{signal: sig}
			fa, fb := totalFit(ra, sig), totalFit(rb, sig)
			if fa != nil {
				sc.a = &fa.PerLifecycle
			}
			if fb != nil {
				sc.b = &fb.PerLifecycle
			}
			if fa != nil && fb != nil {
				d := analysis.Difference(*fb, *fa)
				sc.diff = &d
			}
			mc.slopes = append(mc.slopes, sc)
		}
		c.models = append(c.models, mc)
	}
	for _, m := range b.Models {
		if a.Runs[m] == nil {
			c.onlyB = append(c.onlyB, m)
		}
	}
	if len(c.models) == 0 {
		return nil, fmt.Errorf("%w: A has %s, B has %s", ErrNothingToCompare,
			orDash(strings.Join(a.Models, ", ")), orDash(strings.Join(b.Models, ", ")))
	}
	if da, db := a.Provenance.ScenarioDigest, b.Provenance.ScenarioDigest; da != db {
		c.warnings = append(c.warnings, fmt.Sprintf("the scenarios differ (A: %s, digest %s; B: %s, digest %s): "+
			"a difference may come from the workload, not the code", a.Scenario.Name, shortDigest(da),
			b.Scenario.Name, shortDigest(db)))
	}
	for _, x := range []struct {
		name string
		r    *schema.Result
	}{{"A", a}, {"B", b}} {
		if x.r.Status != schema.StatusComplete {
			c.warnings = append(c.warnings, fmt.Sprintf("%s is %s: its numbers come from partial runs", x.name,
				strings.ToUpper(x.r.Status)))
		}
	}
	if pa, pb := a.Provenance, b.Provenance; pa.Host != pb.Host || pa.Allocator != pb.Allocator ||
		pa.RocksDBVersion != pb.RocksDBVersion {
		c.warnings = append(c.warnings, fmt.Sprintf("the runs differ in host, allocator or RocksDB "+
			"(A: %s, %s, RocksDB %s; B: %s, %s, RocksDB %s)", orDash(pa.Host), orDash(string(pa.Allocator)),
			orDash(pa.RocksDBVersion), orDash(pb.Host), orDash(string(pb.Allocator)), orDash(pb.RocksDBVersion)))
	}
	return c, nil
}

// totalFit is a run's lifecycle-only fit of sig, or nil.
func totalFit(run *schema.Run, sig string) *schema.SignalFit {
	if run == nil {
		return nil
	}
	if f, ok := run.Fits[sig]; ok {
		return f.Total
	}
	return nil
}

func shortDigest(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return orDash(d)
}

func describeResult(r *schema.Result) string {
	p := r.Provenance
	return fmt.Sprintf("%s (%s), commit %s, %s, RocksDB %s, started %s", r.Scenario.Name, r.Status,
		shortDigest(p.GitCommit), orDash(p.Host), orDash(p.RocksDBVersion), orDash(p.StartTime))
}

func estOrDash(e *stats.Estimate, unit string) string {
	if e == nil {
		return "—"
	}
	return fmtEst(*e, unit, true)
}

func (c *comparison) slopeTable() *table.Table {
	t := table.New("l|l|r|r|r", "model", "signal", "A per lifecycle [95% CI]", "B per lifecycle [95% CI]",
		"B − A [95% CI]")
	for _, mc := range c.models {
		for _, sc := range mc.slopes {
			u := analysis.Describe(sc.signal).Unit
			t.Add(mc.model, analysis.Describe(sc.signal).Name, estOrDash(sc.a, u), estOrDash(sc.b, u), estOrDash(sc.diff, u))
		}
	}
	return t
}

func (c *comparison) outcomeTable(bold bool) *table.Table {
	t := table.New("l|l|l|r|r", "model", "verdict A", "verdict B", "task errors A → B", "records lost A → B")
	word := func(run *schema.Run) string {
		if bold {
			return "**" + verdictWord(run) + "**"
		}
		return verdictWord(run)
	}
	arrow := func(a, b int64) string { return strconv.FormatInt(a, 10) + " → " + strconv.FormatInt(b, 10) }
	for _, mc := range c.models {
		t.Add(mc.model, word(mc.a), word(mc.b), arrow(mc.a.TaskErrors, mc.b.TaskErrors),
			arrow(mc.a.RecordsLost, mc.b.RecordsLost))
	}
	return t
}

// CompareMarkdown compares two results model by model, as Markdown: for each
// model present in both, the per-lifecycle slopes of native heap and RSS
// (lifecycle-only fits) in A and in B with their 95% intervals and the
// difference B − A with its Welch interval, the verdicts side by side, task
// errors and records lost. Differing scenarios, incomplete runs and differing
// hosts are warnings in the text; the error is ErrNothingToCompare when no
// model is common.
func CompareMarkdown(a, b *schema.Result) ([]byte, error) {
	c, err := compare(a, b)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# rocksleak compare\n\n")
	fmt.Fprintf(&buf, "- **A**: %s\n- **B**: %s\n\n", table.EscapeMarkdown(describeResult(a)), table.EscapeMarkdown(describeResult(b)))
	for _, w := range c.warnings {
		fmt.Fprintf(&buf, "> **Warning:** %s\n\n", table.EscapeMarkdown(w))
	}
	buf.WriteString("## Per-lifecycle growth\n\n")
	buf.WriteString("Slopes of the lifecycle-only fits (the whole growth per lifecycle, failed closes included), " +
		"95% intervals; B − A has a Welch interval (independent runs). An interval of B − A that excludes 0 is a " +
		"change the two runs can tell apart.\n\n")
	c.slopeTable().Markdown(&buf)
	buf.WriteString("## Verdicts and correctness\n\n")
	c.outcomeTable(true).Markdown(&buf)
	if len(c.onlyA) > 0 || len(c.onlyB) > 0 {
		fmt.Fprintf(&buf, "Not compared: only in A: %s; only in B: %s.\n",
			orDash(strings.Join(c.onlyA, ", ")), orDash(strings.Join(c.onlyB, ", ")))
	}
	return buf.Bytes(), nil
}

// CompareText is CompareMarkdown for the terminal: the same comparison as
// plain text tables.
func CompareText(a, b *schema.Result) (string, error) {
	c, err := compare(a, b)
	if err != nil {
		return "", err
	}
	var s strings.Builder
	fmt.Fprintf(&s, "A: %s\nB: %s\n", describeResult(a), describeResult(b))
	for _, w := range c.warnings {
		fmt.Fprintf(&s, "warning: %s\n", w)
	}
	s.WriteString("\nper-lifecycle growth (lifecycle-only fits, 95% CI):\n")
	c.slopeTable().Text(&s)
	s.WriteString("\n")
	c.outcomeTable(false).Text(&s)
	if len(c.onlyA) > 0 || len(c.onlyB) > 0 {
		fmt.Fprintf(&s, "\nnot compared: only in A: %s; only in B: %s\n",
			orDash(strings.Join(c.onlyA, ", ")), orDash(strings.Join(c.onlyB, ", ")))
	}
	return s.String(), nil
}
