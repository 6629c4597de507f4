package results

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// howToRead explains the verdict rule the report's verdicts follow
// (stats.DecideSignals) with r's floors.
func howToRead(r *schema.Result) string {
	return fmt.Sprintf("Every slope is the growth of a signal per store lifecycle (one store or window segment opened and closed), "+
		"fitted after the warm-up is cut, with a 95%% interval from a GLS fit whose error model (AR(1) plus a random walk, "+
		"whose steps may themselves be autocorrelated, as when memory grows in bursts; chosen by profile likelihood) allows "+
		"for autocorrelated and wandering samples, and takes the widest interval among the error models the data cannot "+
		"rule out. RSS's interval is the wider of that one and a batch-means one (12 batches, Student-t with 11 df), a "+
		"safeguard measured on real RSS, and its fits take the "+
		"changelog records replayed by restores as a regressor, because a restore's burst of segment lifecycles would "+
		"otherwise tilt its slope. "+
		"The verdict of a model rests on the native heap (what the C allocator has handed out) and RSS (what the "+
		"process occupies), by two one-sided tests at 2.5%% each: a leak when the native heap's interval lies above its "+
		"floor of %s/lifecycle, RSS's interval reaches that floor (RSS consistent with a leak), and neither signal's growth "+
		"slows; no leak only when every interval lies below its "+
		"floor (native heap below its floor and RSS below its floor of %s/lifecycle: equivalence, not the absence of a trend); "+
		"otherwise inconclusive, saying what would settle it. A fit flag that undermines the fit (too few samples, warm-up "+
		"cut at its limit, slope not constant, level shift) makes the verdict inconclusive, with one exception: RSS's warm-up "+
		"cut at its limit or changing slope does not when the native heap's fit is clean and RSS agrees with it: for a leak, "+
		"each half of RSS's used samples reaches the native floor; for no leak, RSS lies below its floor over its used "+
		"samples and over their later half. "+
		"Verdicts use the lifecycle-only fit (column *per lifecycle*), which includes the failed closes at the run's rate; "+
		"the two-counter fit separates the cost of a failed close. Controlled verdicts judge a model against a control in the "+
		"same run that differs from it by one thing: they find leaks below any floor. Bytes are scaled by 1024 (KiB, MiB); "+
		"result.json and samples.csv hold the raw numbers.",
		units.FormatBytes(r.Floors.NativeHeap), units.FormatBytes(r.Floors.RSS))
}

// verdictTable has one row per model: the verdict, its reason, the flags
// that made it inconclusive and what would settle it.
func verdictTable(r *schema.Result) *table.Table {
	t := table.New("l|l|l|l|l", "model", "verdict", "reason", "flags", "what would settle it")
	for _, m := range r.Models {
		run := r.Runs[m]
		word := "**" + verdictWord(run) + "**"
		flags, settle := "—", "—"
		if run != nil && run.Verdict != nil {
			if run.Verdict.EarlyStop {
				word += " (early stop)"
			}
			if len(run.Verdict.Flags) > 0 {
				flags = strings.Join(run.Verdict.Flags, "; ")
			}
			if run.Verdict.Settle != "" {
				settle = run.Verdict.Settle
			}
		}
		t.Add(m, word, verdictReason(run), flags, settle)
	}
	return t
}

// reportSequential renders the early verdicts of --until-verdict, if any.
func reportSequential(b *bytes.Buffer, r *schema.Result) {
	t := table.New("l|l|l|l", "model", "native-heap verdict settled", "verdict settled", "looks")
	any := false
	cell := func(l *schema.Look) string {
		if l == nil {
			return "not settled: the run went on to its limit"
		}
		return fmt.Sprintf("**%s** after %s, %d lifecycles (look %d, intervals at %s)", analysis.VerdictWord(l.Leak),
			fmtDuration(l.ElapsedNs), l.Lifecycles, l.Look, units.FormatPercent(l.Confidence))
	}
	planned := 0.0
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.Sequential == nil {
			continue
		}
		any = true
		planned = max(planned, run.Sequential.PlannedLifecycles)
		t.Add(m, cell(run.Sequential.Native), cell(run.Sequential.Verdict), fmt.Sprint(run.Sequential.Looks))
	}
	if !any {
		return
	}
	fmt.Fprintf(b, "### Early verdicts (--until-verdict)\n\n")
	fmt.Fprintf(b, "Each model was looked at as its samples arrived, by an O'Brien–Fleming-type error-spending rule "+
		"(Lan–DeMets) over the planned %.0f lifecycles, so that all looks together keep a 5%% false-call rate. No look "+
		"is taken before 60 samples after the warm-up cut, nor while a fit carries a blocking flag; an inconclusive "+
		"look lets the run go on. A verdict reached at an early stop is reported with the intervals of its look (wider "+
		"than 95%%) and marked *early stop*: its estimate is biased away from the floor (the run stopped because it "+
		"looked extreme). Times are from the start of the model's run in its child.\n\n", planned)
	t.Markdown(b)
}

// reportControlled renders the controlled verdicts, if any.
func reportControlled(b *bytes.Buffer, r *schema.Result) {
	if len(r.Controlled) == 0 {
		return
	}
	fmt.Fprintf(b, "### Controlled verdicts\n\n")
	fmt.Fprintf(b, "Each model judged against a control in the same run that differs from it by one thing (one fix, "+
		"or the synthetic leak): the per-lifecycle slope of the difference model − control with its interval, from the "+
		"paired difference series (slopes between batch means, %s interval, less its fitted share of RocksDB's timer "+
		"backlog, which follows each run's wall-clock pace) when both runs' samples are at hand, else the difference "+
		"of the two fits (95%% interval, Welch–Satterthwaite df from the fits' effective df); each row gives its level. "+
		"*leak* when the interval lies above 0: a one-sided test (%s at %s, 2.5%% at 95%%) that finds a leak below "+
		"any absolute floor, unless a blocking flag of the fit it rests on withholds it (the paired series': too few "+
		"samples, the warm-up cut at its limit, a level shift; either fit's for the difference of two fits): the "+
		"verdict is then *inconclusive* whatever the interval says, and names the flag.\n\n", units.FormatPercent(stats.PairedConfidence), units.FormatPercent((1-stats.PairedConfidence)/2), units.FormatPercent(stats.PairedConfidence))
	t := table.New("l|l|l|l|r|r|l|r", "model", "control", "differs by", "signal", "model − control per lifecycle [CI]",
		"level", "verdict", "lifecycles")
	for _, c := range r.Controlled {
		u := analysis.Describe(c.Signal).Unit
		t.Add(c.Model, c.Control, c.Differs, analysis.Describe(c.Signal).Name, fmtEst(c.Difference, u, true),
			controlledLevel(c), "**"+c.Verdict+"**"+controlledWithheld(c), fmt.Sprint(c.Lifecycles))
	}
	t.Markdown(b)
}

// summaryVerdictExtras adds, under a model's verdict line in the summary,
// the ledger's kinds that keep growing, the flags that made it inconclusive
// and what would settle it.
func summaryVerdictExtras(b *strings.Builder, run *schema.Run) {
	if run == nil || run.Verdict == nil {
		return
	}
	if w := ledgerGrowthWords(run); w != "" {
		fmt.Fprintf(b, "  the ledger grows: %s\n", w)
	}
	if len(run.Verdict.Flags) > 0 {
		fmt.Fprintf(b, "  flags: %s\n", strings.Join(run.Verdict.Flags, "; "))
	}
	if run.Verdict.Settle != "" {
		fmt.Fprintf(b, "  to settle it: %s\n", run.Verdict.Settle)
	}
}

// summaryControlled lists the controlled verdicts in the summary.
func summaryControlled(b *strings.Builder, r *schema.Result) {
	if len(r.Controlled) == 0 {
		return
	}
	b.WriteString("\ncontrolled verdicts (model − control per lifecycle; each interval with its level):\n")
	for _, c := range r.Controlled {
		fmt.Fprintf(b, "%s vs %s (%s): %s: %s\n", c.Model, c.Control, c.Differs, c.Verdict, c.Reason)
	}
}

// controlledLevel is the level column of a controlled verdict: its
// interval's level, or "—" when it has no interval.
func controlledLevel(c schema.Controlled) string {
	if !c.Difference.Valid {
		return "—"
	}
	return units.FormatPercent(schema.ControlledConfidence(c))
}

// controlledWithheld is what follows a controlled verdict's word when a
// blocking flag withheld it: " (withheld: paired difference:
// warmup-at-limit)", or "". A rendering that shows the verdict beside its
// interval shows this too, so an inconclusive verdict over an interval above
// 0 says why.
func controlledWithheld(c schema.Controlled) string {
	if c.Withheld == "" {
		return ""
	}
	return " (withheld: " + c.Withheld + ")"
}
