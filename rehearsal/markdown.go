package rehearsal

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/gate"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// WriteMarkdown writes the rehearsal report: the decision, the fleet, the
// version mapping over time, per phase each instance's model, slopes with
// their 95% intervals (native heap per lifecycle, RSS per million records),
// leak verdict, lag, restart and restore times, task errors and records
// lost, and the phase's gate (its table and decision) as recorded; then the
// rollback evidence and the final decision. It analyses r (Analyze) and
// renders the analysis (WriteAnalysisMarkdown).
func WriteMarkdown(w io.Writer, r *schema.Rehearsal) error {
	a, err := Analyze(r)
	if err != nil {
		return err
	}
	return WriteAnalysisMarkdown(w, a)
}

// WriteAnalysisMarkdown renders an analysis as Markdown; it only formats.
func WriteAnalysisMarkdown(w io.Writer, a *Analysis) error {
	r := a.Rehearsal
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Upgrade rehearsal: %s → %s: %s\n\n", r.From, r.To, statusWord(r.Status))
	fmt.Fprintf(&b, "**Decision:** %s\n\n", orDash(r.Decision))
	domains := map[int]bool{}
	for _, fi := range r.Instances {
		domains[fi.Domain] = true
	}
	fmt.Fprintf(&b, "Scenario `%s`, seed %d: %d instances in %d failure domains, at most %d restarting at once; "+
		"each gated phase lasts %s of simulated time at %g records/s per task. Wall time %s. Commit `%.12s`.\n\n",
		r.Scenario, r.Seed, len(r.Instances), len(domains), r.MaxRestarts, simTime(r.WindowMs), r.RecordsPerSecond,
		wallTime(r.ElapsedNs), r.Provenance.GitCommit)
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "> **error:** %s\n>\n", table.EscapeMarkdown(e))
	}
	if len(r.Errors) > 0 {
		b.WriteString("\n")
	}

	b.WriteString("## Fleet\n\n")
	ft := table.New("r|r|l", "instance", "domain", "tasks (at the start)")
	for _, fi := range r.Instances {
		ft.Add(fmt.Sprint(fi.ID), fmt.Sprint(fi.Domain), joinInts(fi.Tasks))
	}
	ft.Markdown(&b)

	b.WriteString("## Version mapping over time\n\n")
	vt := table.New("r|r|l|l|l", "at (simulated)", "instance", "from", "to", "phase")
	for _, v := range r.Versions {
		vt.Add(simTime(v.AtMs), fmt.Sprint(v.Instance), orDash(v.From), v.To, v.Phase)
	}
	vt.Markdown(&b)

	b.WriteString("## Phases\n\n")
	b.WriteString("Slopes are each instance's own fits over the phase (lifecycle-only fit, warm-up cut: a restart's " +
		"recovery peak falls in the cut samples), with 95% intervals; the verdict is the leak verdict of those fits at " +
		"the default floors. Lag is the worst over the phase: records waiting and the age of the oldest, in simulated " +
		"time. Restart is wall time from process start to tasks restored; restores are the store restores during the " +
		"phase (count, median, max).\n\n")
	for _, pa := range a.Phases {
		writePhase(&b, r, pa)
	}

	if rb := r.Rollback; rb != nil {
		fmt.Fprintf(&b, "## Rollback\n\n")
		word := "✅ verified"
		if !rb.Verified {
			word = "❌ **not verified**"
		}
		fmt.Fprintf(&b, "Instance%s %s rolled back to `%s`: %s.\n\n", plural(len(rb.Instances)), joinInts(rb.Instances), r.From, word)
		rt := table.New("l|l|l", "check", "result", "detail")
		for _, c := range rb.Checks {
			res := "✅ ok"
			if !c.OK {
				res = "❌ failed"
			}
			rt.Add(c.Name, res, c.Detail)
		}
		rt.Markdown(&b)
	}

	b.WriteString("## Final decision\n\n")
	fmt.Fprintf(&b, "**%s** (exit status %d): %s\n\n", statusWord(r.Status), exitStatus(r.Status), orDash(r.Decision))
	fmt.Fprintf(&b, "<sub>Gate rule: %s. Every candidate is gated on its own against the baseline instances over the "+
		"same phase; the baseline slope is the mean of the baseline instances' slopes.</sub>\n",
		table.EscapeMarkdown(gate.Rule))
	_, err := w.Write(b.Bytes())
	return err
}

func writePhase(b *bytes.Buffer, r *schema.Rehearsal, pa PhaseAnalysis) {
	fmt.Fprintf(b, "### %d. %s\n\n", pa.Index+1, pa.Name)
	ph := r.Phases[pa.Index]
	restarted := "none"
	if len(pa.Restarted) > 0 {
		restarted = "instance" + plural(len(pa.Restarted)) + " " + joinInts(pa.Restarted)
	}
	fmt.Fprintf(b, "Simulated %s to %s; wall %s; restarted at the start: %s.\n\n", simTime(pa.StartMs), simTime(pa.EndMs),
		wallTime(ph.ElapsedNs), restarted)
	t := table.New("r|r|l|r|r|r|l|r|r|r|r|r", "instance", "domain", "model", "samples (cut)",
		"native heap / lifecycle [95% CI]", "RSS / 1M records [95% CI]", "verdict", "max lag", "restart",
		"restores (n, p50, max)", "task errors", "records lost")
	for _, ia := range pa.Instances {
		model := "`" + ia.Model + "`"
		if ia.Restarted {
			model += " ↻"
		}
		verdict := "—"
		if ia.Verdict != nil {
			verdict = analysis.VerdictWord(ia.Verdict.Leak)
			if len(ia.Verdict.Flags) > 0 {
				verdict += " (" + strings.Join(ia.Verdict.Flags, "; ") + ")"
			}
		}
		if ia.FitError != "" {
			verdict = "not fitted: " + ia.FitError
		}
		t.Add(fmt.Sprint(ia.Instance), fmt.Sprint(ia.Domain), model, fmt.Sprintf("%d (%d)", ia.Samples, ia.WarmupSamples),
			fmtEstimate(ia.NativePerLifecycle), fmtEstimate(ia.RSSPerMillionRecords), verdict,
			fmt.Sprintf("%d records, %s", ia.MaxLagRecords, simTime(ia.MaxLagMs)), restartCell(ia.RestartNs),
			restoreCell(ia.Summary.Restore), fmt.Sprint(ia.Summary.TaskErrors), fmt.Sprint(ia.Summary.RecordsLost))
	}
	t.Markdown(b)
	g := pa.Gate
	if g == nil {
		b.WriteString("Not gated.\n\n")
		return
	}
	fmt.Fprintf(b, "**Gate: %s %s** — %s\n\n", outcomeIcon(g.Outcome), g.Outcome, table.EscapeMarkdown(g.Reason))
	gt := table.New("l|r|r|r|l|l", "check", "baseline", "candidate [95% interval]", "limit", "outcome", "reason")
	for _, c := range g.Checks {
		// Only ratio checks read a baseline; a max or equal check records 0.
		base := "—"
		if c.Baseline != 0 || c.Unit == gate.UnitBytesPerLifecycle || c.Unit == gate.UnitBytesPerMillionRecords {
			base = fmtUnit(c.Baseline, c.Unit)
		}
		cand := fmtUnit(c.Candidate, c.Unit)
		if c.CandidateLow != c.CandidateHigh {
			cand += fmt.Sprintf(" [%s, %s]", fmtUnit(c.CandidateLow, c.Unit), fmtUnit(c.CandidateHigh, c.Unit))
		}
		gt.Add("`"+c.Name+"`", base, cand, fmtUnit(c.Limit, c.Unit), outcomeIcon(c.Outcome)+" "+c.Outcome, c.Reason)
	}
	gt.Markdown(b)
}

func statusWord(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// exitStatus is the exit status `rocksleak rehearse` gives a status (see
// schema's rehearsal statuses).
func exitStatus(s string) int {
	switch s {
	case schema.RehearsalComplete:
		return 0
	case schema.RehearsalRolledBack:
		return 1
	case schema.RehearsalRollbackFailed:
		return 3
	}
	return 1
}

func outcomeIcon(o string) string {
	switch o {
	case OutcomePass:
		return "✅"
	case OutcomeWarn:
		return "⚠️"
	case OutcomeFail:
		return "❌"
	}
	return "?"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// simTime renders milliseconds of simulated time.
func simTime(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }

// wallTime renders nanoseconds of wall time, to the millisecond.
func wallTime(ns int64) string { return time.Duration(ns).Round(time.Millisecond).String() }

func restartCell(ns int64) string {
	if ns <= 0 {
		return "—"
	}
	return wallTime(ns)
}

func restoreCell(rs schema.RestoreStats) string {
	if rs.Count == 0 {
		return "none"
	}
	return fmt.Sprintf("%d, %s, %s", rs.Count, wallTime(rs.P50Ns), wallTime(rs.MaxNs))
}

// fmtEstimate renders a byte slope with its interval; "n/a" when it has
// none.
func fmtEstimate(e stats.Estimate) string {
	if !e.Valid {
		if e.Value != 0 {
			return units.FormatSignedBytes(e.Value) + " (no CI)"
		}
		return "n/a"
	}
	return fmt.Sprintf("%s [%s, %s]", units.FormatSignedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High))
}

// fmtUnit renders a gate value in its unit.
func fmtUnit(v float64, unit string) string {
	switch unit {
	case gate.UnitBytesPerLifecycle, gate.UnitBytesPerMillionRecords:
		return units.FormatBytes(v)
	case gate.UnitNanoseconds:
		if math.Abs(v) >= math.MaxInt64 {
			return fmt.Sprintf("%g ns", v)
		}
		return time.Duration(v).Round(10 * time.Microsecond).String()
	case gate.UnitFDsPerLifecycle:
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.0f", v)
}
