package plan

import (
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// ledgerWarnings are rssBelowLedger's warning and, when the ledger counts
// kinds that rise with lifecycles but the native heap's growth is not
// significant (a short run), one saying the plan projects no cost for them,
// the longer run (settle) that would measure it and the plan settled by it
// (then).
func ledgerWarnings(signals []Signal, growing []analysis.LedgerGrowth, settle, then string) []string {
	var out []string
	if w := rssBelowLedger(signals); w != "" {
		out = append(out, w)
	}
	for _, s := range signals {
		if s.Signal == analysis.SignalNativeHeap && s.Growth == GrowthNone && len(growing) > 0 {
			out = append(out, fmt.Sprintf("the ledger counts %s rising with lifecycles, but the native heap's growth "+
				"is not significant in this run, so no cost is projected for them; a longer run measures it: %s; then: %s",
				ledgerKinds(growing), settle, then))
		}
	}
	return out
}

// rssBelowLedger warns when the native heap's growth is sustained by the
// ledger but RSS is not projected as sustained: the allocator can keep RSS
// level for a while by reusing pages it holds (the kafka-4.3.1 soak of
// docs/findings.md, 2026-12-06: RSS level at 115-116 MiB from minute 15
// while the native heap rose 12.6 MiB), but not past them.
func rssBelowLedger(signals []Signal) string {
	var nat, rss *Signal
	for i := range signals {
		switch signals[i].Signal {
		case analysis.SignalNativeHeap:
			nat = &signals[i]
		case analysis.SignalRSS:
			rss = &signals[i]
		}
	}
	if nat == nil || rss == nil || len(nat.Ledger) == 0 || rss.Growth == GrowthSustained {
		return ""
	}
	return fmt.Sprintf("RSS is projected by its own fit (%s), yet the native heap grows %s/day with objects the ledger "+
		"counts live: the allocator can hold RSS on pages it already has, but once they are used RSS grows at least as "+
		"the native heap does", rss.Growth, units.FormatBytes(nat.GrowthPerDay.Expected))
}

// ledgerSustained says why a ledger kind's rise makes growth sustained.
func ledgerSustained(kinds []analysis.LedgerGrowth, from int64, later stats.Fit) string {
	e := later.PerLifecycle
	return fmt.Sprintf("sustained: %s (ledger), a count that keeps its rate; projected linearly at the rate of the run's "+
		"later half (lifecycle %d on): total %s/lifecycle [%s, %s] (95%%), failed closes at the run's rate",
		ledgerKinds(kinds), from, signedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High))
}

// ledgerKinds names growing kinds for people.
func ledgerKinds(kinds []analysis.LedgerGrowth) string {
	var ks []string
	for _, k := range kinds {
		ks = append(ks, fmt.Sprintf("%s live %.2f per lifecycle (%d live at the end)", k.Kind, k.PerLifecycle, k.LiveAtEnd))
	}
	return strings.Join(ks, ", ")
}

// readSamples reads the run's samples between its lifecycles (an application's inside them, its stores open, are
// read by none of the rules across lifecycles, as analysis.Analyze reads none: schema.BetweenLifecycles): the timer
// backlog's entries per lifecycle, then the ledger's growth (ledgerGrowth, whose warning it returns).
func (pc *projection) readSamples(all []schema.Sample) string {
	samples := schema.BetweenLifecycles(all)
	pc.timerPerLC, pc.timerOK = timerEntriesPerLifecycle(samples)
	return pc.ledgerGrowth(samples)
}

// ledgerGrowth sets pc.growing, the ledger's kinds that rise with lifecycles in samples, and when there are any,
// pc.later and pc.laterFrom, the native heap's fit over the run's later half; it returns a warning for people when
// that fit fails (the native heap is then projected by its whole-run fit), else "".
func (pc *projection) ledgerGrowth(samples []schema.Sample) string {
	if len(samples) == 0 {
		return ""
	}
	if pc.growing = analysis.GrowingKinds(samples); len(pc.growing) == 0 {
		return ""
	}
	var err error
	if pc.later, pc.laterFrom, err = analysis.LaterHalfFits(samples, analysis.SignalNativeHeap); err != nil {
		return fmt.Sprintf("the ledger counts kinds that rise with lifecycles, but the later half of the run could "+
			"not be fitted (%v): the native heap is projected by its whole-run fit", err)
	}
	return ""
}
