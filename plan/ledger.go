package plan

import (
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/stats"
)

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
	var ks []string
	for _, k := range kinds {
		ks = append(ks, fmt.Sprintf("%s live %.2f per lifecycle (%d live at the end)", k.Kind, k.PerLifecycle, k.LiveAtEnd))
	}
	e := later.PerLifecycle
	return fmt.Sprintf("sustained: %s (ledger), a count that keeps its rate; projected linearly at the rate of the run's "+
		"later half (lifecycle %d on): total %s/lifecycle [%s, %s] (95%%), failed closes at the run's rate",
		strings.Join(ks, ", "), from, signedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High))
}
