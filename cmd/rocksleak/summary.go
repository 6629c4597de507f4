package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rocksleak/rocksleak/results"
)

// printSummary is the terminal's short version of a result.
func printSummary(w io.Writer, r *results.Result) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tlifecycles\tfailed closes\tinit failures\ttask errors\trecords lost\tnative heap Δ\tRSS Δ\tlive natives at end\t")
	for _, m := range r.Models {
		run := r.Runs[m]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", m, run.Lifecycles, run.FailedCloses,
			run.InitFailures, run.TaskErrors, run.RecordsLost,
			signedBytes(run.NativeHeapEnd-run.NativeHeapStart), signedBytes(run.RSSEnd-run.RSSStart),
			ledgerString(run.LedgerAtEnd))
	}
	tw.Flush()
	for _, m := range r.Models {
		if e := r.Runs[m].Error; e != "" {
			fmt.Fprintf(w, "%s: error: %s\n", m, e)
		}
	}
}

func ledgerString(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// signedBytes renders a byte delta for people, scaled by 1024.
func signedBytes(b int64) string {
	sign := "+"
	if b < 0 {
		sign, b = "-", -b
	}
	return sign + humanBytes(float64(b))
}

func humanBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}
