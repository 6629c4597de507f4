package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
)

// Renderer writes a Plan in one format. Renderers only format.
type Renderer func(io.Writer, *Plan) error

// Formats lists the text formats RendererFor knows.
func Formats() []string { return []string{"text", "json"} }

// RendererFor returns the renderer of a format: "text" (for people, bytes
// scaled by 1024) or "json" (raw units).
func RendererFor(format string) (Renderer, error) {
	switch format {
	case "text", "":
		return WriteText, nil
	case "json":
		return WriteJSON, nil
	}
	return nil, fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(Formats(), ", "))
}

// WriteJSON writes the plan as indented JSON, raw units.
func WriteJSON(w io.Writer, p *Plan) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// WriteText writes the plan for a terminal.
func WriteText(w io.Writer, p *Plan) error {
	var b strings.Builder
	t, e := p.Topology, p.Events
	name := t.Name
	if name == "" {
		name = "topology"
	}
	fmt.Fprintf(&b, "capacity plan: %s, model %s", name, p.Source.Model)
	if p.Source.ResidentModel != p.Source.Model {
		fmt.Fprintf(&b, " (resident cost from %s)", p.Source.ResidentModel)
	}
	fmt.Fprintf(&b, "\nfrom: scenario %s, seed %d, status %s", p.Source.Scenario, p.Source.Seed, p.Source.Status)
	if p.Source.Path != "" {
		fmt.Fprintf(&b, ", %s", p.Source.Path)
	}
	if sb := p.Source.SettledBy; sb != nil {
		fmt.Fprintf(&b, "\nsettled by: %s (seed %d, status %s, %d lifecycles in %s): it decides the growth this run could not tell",
			sb.Path, sb.Seed, sb.Status, sb.Lifecycles, time.Duration(sb.ElapsedNs).Round(time.Second))
	}
	fmt.Fprintf(&b, "\ntopology: %d tasks × %d stores × %d live segments = %s open DBs; a segment every %s; "+
		"%s rebalances/day moving %s of the tasks; %s of closes fail\n",
		t.Tasks, t.StoresPerTask, t.LiveSegments, num(e.LiveDBs), t.SegmentInterval, num(t.RebalancesPerDay),
		pct(t.RebalanceShare), pct(t.CloseFailureRate))
	budget := "none"
	if p.Budget > 0 {
		budget = units.FormatBytes(p.Budget)
	}
	fmt.Fprintf(&b, "budget: %s; horizon: %s days\n", budget, num(p.Horizon))
	fmt.Fprintf(&b, "events per day: %s lifecycles (%s segment rolls + %s rebalance reopens), %s failed closes\n",
		num(e.Lifecycles), num(e.SegmentRolls), num(e.RebalanceReopens), num(e.FailedCloses))
	fmt.Fprintf(&b, "measured: %d lifecycles at a close failure rate of %s\n", e.MeasuredLifecycles, pct(e.MeasuredCloseRate))
	for _, s := range p.Signals {
		writeSignal(&b, p, s)
	}
	if p.Budget > 0 {
		fmt.Fprintln(&b, "\n(low/expected/high growth; the budget is reached last at the low growth)")
	}
	for _, wn := range p.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", wn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSignal writes one signal's projection: why it is projected so, then
// its table (costs, resident and timer backlog, usage by day, budget).
func writeSignal(b *strings.Builder, p *Plan, s Signal) {
	e := p.Events
	fmt.Fprintf(b, "\n%s: %s\n", analysis.Describe(s.Signal).Name, s.Reason)
	switch {
	case s.DecidedBy == DecidedBySettler:
		fmt.Fprintf(b, "  settled by %s\n", s.Settled)
	case p.Source.SettledBy != nil:
		fmt.Fprintf(b, "  decided by this run (its growth %s): the longer run decides only growth this run could not tell\n", s.Growth)
	}
	type line struct {
		label string
		cells [3]string
	}
	var lines []line
	row := func(label string, r Range, f func(float64) string) {
		lines = append(lines, line{label, [3]string{f(r.Low), f(r.Expected), f(r.High)}})
	}
	switch s.Growth {
	case GrowthUndetermined:
		fmt.Fprintf(b, "  projected as a band: low and expected if it levels off (%s), high if it keeps its rate\n",
			s.boundDesc(e.Lifecycles))
		fmt.Fprintf(b, "  to settle it (%s):\n    %s\n  then:\n    %s\n", s.SettleWhy, s.Settle, s.SettleThen)
	case GrowthBounded:
		fmt.Fprintf(b, "  projected as its bound: %s\n", s.boundDesc(e.Lifecycles))
	}
	if s.Growth != GrowthNone {
		if s.TimerPerLifecycle.High > 0 {
			row("timer backlog per lifecycle (taken out)", s.TimerPerLifecycle, units.FormatBytes)
		}
		row("cost per lifecycle", s.CostPerLifecycle, units.FormatBytes)
		row("cost per failed close", s.CostPerFailedClose, units.FormatBytes)
		label := "growth per day"
		if s.Growth != GrowthSustained {
			label = "growth per day if it kept its rate"
		}
		row(label, s.GrowthPerDay, units.FormatBytes)
	}
	res := Range{s.Resident, s.Resident, s.Resident}
	row(fmt.Sprintf("resident (%s DBs × %s)", num(e.LiveDBs), units.FormatBytes(s.ResidentPerDB)), res, units.FormatBytes)
	row("timer backlog held (per time, not lifecycle)", s.TimerHeld, units.FormatBytes)
	for _, u := range s.Usage {
		row(fmt.Sprintf("usage at day %s", num(u.Day)), u.Range, units.FormatBytes)
	}
	if s.UntilBudget != nil {
		lines = append(lines, line{fmt.Sprintf("%s budget reached in", units.FormatBytes(p.Budget)),
			[3]string{reach(s.UntilBudget.Low), reach(s.UntilBudget.Expected), reach(s.UntilBudget.High)}})
	}
	// Labels left-aligned (padded to one width), numbers right-aligned.
	width := 0
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l.label))
	}
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', tabwriter.AlignRight)
	high := "high"
	if s.Growth == GrowthUndetermined {
		high = "high if sustained"
	}
	fmt.Fprintf(tw, "  %s\tlow\texpected\t%s\t\n", strings.Repeat(" ", width), high)
	for _, l := range lines {
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(l.label))
		fmt.Fprintf(tw, "  %s%s\t%s\t%s\t%s\t\n", l.label, pad, l.cells[0], l.cells[1], l.cells[2])
	}
	tw.Flush()
}

func reach(r Reach) string {
	switch r.State {
	case ReachNever:
		return "never"
	case ReachAlreadyOver:
		return "already over"
	}
	if r.Days < 1 {
		return fmt.Sprintf("%.1f hours", r.Days*24)
	}
	return fmt.Sprintf("%.1f days", r.Days)
}

// num formats a count or a day for people: integers without decimals.
func num(v float64) string {
	if math.Abs(v) < 1e15 && v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

func pct(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.3g%%", v*100), ".0%") }

func signedBytes(b float64) string {
	if b >= 0 {
		return "+" + units.FormatBytes(b)
	}
	return units.FormatBytes(b)
}
