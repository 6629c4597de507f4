package main

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"
)

// Render formats the table for people.
func Render(t Table) string {
	var sb strings.Builder
	tw := func() *tabwriter.Writer { return tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0) }

	if len(t.Variants) > 0 {
		fmt.Fprintf(&sb, "Store lifecycle (open, 50 × 128 B records, commit flushing both CFs, read back, close): "+
			"per lifecycle, median of %s\n", counts(t.Variants[0].Time.N))
		w := tw()
		fmt.Fprintln(w, "variant\ttime\t±\tvs bare\tlifecycles/s\tCPU\tCPU vs bare\tnative heap left\tnatives left\tin sample")
		for _, v := range t.Variants {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Name, ns(v.Time), deviation(v.Time),
				ratio(v.VsBare), number(v.PerSecond, "%.1f"), ns(v.CPU), ratio(v.CPUVsBare), byteCount(v.Heap),
				number(v.Natives, "%.2f"), ns(v.SampleTime))
		}
		w.Flush()
		sb.WriteString("time: wall; ±: largest deviation of a count from the median; CPU: the whole process's; " +
			"native heap left: native-heap growth over the loop / lifecycles;\n" +
			"natives left: ledger objects still live / lifecycles; in sample: wall time in the harness's sample.\n\n")
	}

	if p := t.Paired; p != nil {
		fmt.Fprintf(&sb, "Side by side (paired: one bare and one harness-fixed lifecycle per iteration, order alternating), median [range] of %s\n",
			counts(p.Wall.N))
		w := tw()
		fmt.Fprintf(w, "harness/bare wall\t%s\t%s\n", ratio(p.Wall.Median), ratioRange(p.Wall))
		fmt.Fprintf(w, "harness/bare CPU\t%s\t%s\n", ratio(p.CPU.Median), ratioRange(p.CPU))
		w.Flush()
		if p.WallDiff.N > 0 {
			fmt.Fprintf(&sb, "harness − bare per lifecycle: %s wall (%s → %s)", signedNs(p.WallDiff.Median),
				ns(p.BareNs), ns(p.HarnessNs))
			if p.CPUDiff.N > 0 {
				fmt.Fprintf(&sb, ", %s CPU", signedNs(p.CPUDiff.Median))
			}
			if p.SampleNs.N > 0 {
				fmt.Fprintf(&sb, "; the sample alone: %s", ns(p.SampleNs))
			}
			sb.WriteString("\n")
		}
		sb.WriteString("\n")
	}

	if v := t.Verdict; v != nil {
		state := "met"
		if !v.Met {
			state = "NOT met"
		}
		fmt.Fprintf(&sb, "Goal harness-fixed ≤ %.2f × bare: %s (%s: %s)\n", t.Goal, state, v.Basis, ratio(v.Ratio))
		if len(v.Others) > 0 {
			fmt.Fprintf(&sb, "  other estimates: %s\n", strings.Join(v.Others, "; "))
		}
		sb.WriteString("\n")
	}

	if len(t.Samples) > 0 {
		fmt.Fprintf(&sb, "One harness sample (recorder.sample) with k stores open, hot loop; its parts timed alone; median of %s\n",
			counts(t.Samples[0].Time.N))
		w := tw()
		fmt.Fprintln(w, "open DBs\tsample\t±\tSampler.Read\tLedger.Live\tRocksDBMemory\tevent\tof a bare lifecycle")
		for _, s := range t.Samples {
			share := "-"
			if t.BareTimeNs > 0 && s.Time.N > 0 {
				share = fmt.Sprintf("%.2f%%", 100*s.Time.Median/t.BareTimeNs)
			}
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.OpenDBs, ns(s.Time), deviation(s.Time),
				ns(s.Read), ns(s.Ledger), ns(s.RocksDB), ns(s.Event), share)
		}
		w.Flush()
	}
	if t.ReadAlone.N > 0 {
		fmt.Fprintf(&sb, "Sampler.Read alone (measure's BenchmarkSample): %s\n", ns(t.ReadAlone))
	}
	for _, err := range t.Warnings {
		fmt.Fprintf(&sb, "warning: %v\n", err)
	}
	return sb.String()
}

func counts(n int) string {
	if n == 1 {
		return "1 count"
	}
	return fmt.Sprintf("%d counts", n)
}

func ns(s Stat) string {
	if s.N == 0 {
		return "-"
	}
	return nsValue(s.Median)
}

// nsValue renders nanoseconds with three significant digits in the unit that fits.
func nsValue(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 1e3:
		return fmt.Sprintf("%.0f ns", v)
	case a < 1e6:
		return sig3(v/1e3) + " µs"
	case a < 1e9:
		return sig3(v/1e6) + " ms"
	}
	return sig3(v/1e9) + " s"
}

func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a < 10:
		return fmt.Sprintf("%.2f", v)
	case a < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// byteCount renders a byte count for people, scaled by 1024.
func byteCount(s Stat) string {
	if s.N == 0 {
		return "-"
	}
	v := s.Median
	switch a := math.Abs(v); {
	case a < 1<<10:
		return fmt.Sprintf("%.0f B", v)
	case a < 1<<20:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", v/(1<<20))
}

func number(s Stat, format string) string {
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf(format, s.Median)
}

func deviation(s Stat) string {
	if s.N < 2 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*s.Deviation())
}

func ratio(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", r)
}

func ratioRange(s Stat) string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("[%.3f – %.3f]", s.Min, s.Max)
}

func signedNs(v float64) string {
	if v < 0 {
		return "−" + nsValue(-v)
	}
	return "+" + nsValue(v)
}
