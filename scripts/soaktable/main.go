// Command soaktable prints a soak's curves against wall time (`make soak`):
// for each model of a run directory, the native heap and RSS in consecutive
// windows of the run's time (the median of the window's samples), how much
// each rose per minute in that window, and the lifecycles done; then the
// verdict and, where the fit saw the growth slow, its fitted level and when
// it is reached. It reads result.json and samples.csv, as `rocksleak report`
// does; it measures nothing itself.
//
//	go run ./scripts/soaktable [-windows N] DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

func main() {
	windows := flag.Int("windows", 12, "how many windows the run's time is cut into")
	flag.Parse()
	if flag.NArg() != 1 || *windows < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/soaktable [-windows N] DIR (N >= 2)")
		os.Exit(2)
	}
	dir := flag.Arg(0)
	r, err := schema.Read(filepath.Join(dir, "result.json"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "soaktable:", err)
		os.Exit(2)
	}
	samples, err := schema.ReadSamplesCSV(filepath.Join(dir, "samples.csv"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "soaktable:", err)
		os.Exit(2)
	}
	for _, m := range r.Models {
		fmt.Print(modelTable(r.Runs[m], m, samples[m], *windows))
	}
}

// modelTable renders one model's windows, verdict and bounds.
func modelTable(run *schema.Run, model string, ss []schema.Sample, windows int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s: %d samples\n", model, len(ss))
	if len(ss) < 2 || run == nil {
		return b.String()
	}
	end := ss[len(ss)-1].ElapsedNs
	tb := table.New("r|r|r|r|r|r", "until", "lifecycles", "native heap", "per minute", "RSS", "per minute")
	var prevNat, prevRSS float64
	var prevT int64
	for w := 1; w <= windows; w++ {
		lo, hi := end*int64(w-1)/int64(windows), end*int64(w)/int64(windows)
		var nat, rss []float64
		var lcs int64
		for _, s := range ss {
			if s.ElapsedNs > lo && s.ElapsedNs <= hi && s.Trigger != schema.TriggerStart {
				nat = append(nat, analysis.SignalValue(s, analysis.SignalNativeHeap))
				rss = append(rss, analysis.SignalValue(s, analysis.SignalRSS))
				lcs = s.Lifecycles
			}
		}
		if len(nat) == 0 {
			continue
		}
		n, r := stats.Median(nat), stats.Median(rss)
		mid := (lo + hi) / 2
		perMin := func(v, prev float64) string {
			if prevT == 0 {
				return "-"
			}
			return units.FormatSignedBytes((v - prev) / (float64(mid-prevT) / float64(time.Minute)))
		}
		tb.Add(time.Duration(hi).Round(time.Second).String(), fmt.Sprint(lcs), units.FormatBytes(n), perMin(n, prevNat),
			units.FormatBytes(r), perMin(r, prevRSS))
		prevNat, prevRSS, prevT = n, r, mid
	}
	tb.Text(&b)
	if run.Verdict != nil {
		fmt.Fprintf(&b, "verdict: %s\n", run.Verdict.Reason)
	}
	for _, sig := range []string{analysis.SignalNativeHeap, analysis.SignalRSS} {
		f, ok := run.Fits[sig]
		if !ok || f.Total == nil {
			continue
		}
		fmt.Fprintf(&b, "%s: %s/lifecycle [%s, %s]", analysis.Describe(sig).Name, units.FormatSignedBytes(f.Total.PerLifecycle.Value),
			units.FormatBytes(f.Total.PerLifecycle.Low), units.FormatBytes(f.Total.PerLifecycle.High))
		if bd := f.Total.Bound; bd != nil && bd.Fitted {
			fmt.Fprintf(&b, "; levels off at %s (%s above its start), 95%% of it by lifecycle %.0f (reached in the run: %v)",
				units.FormatBytes(bd.Level), units.FormatSignedBytes(bd.Rise), bd.ReachedAt, bd.Reached)
		}
		if len(f.Total.Flags) > 0 {
			flags := make([]string, len(f.Total.Flags))
			for i, fl := range f.Total.Flags {
				flags[i] = string(fl)
			}
			fmt.Fprintf(&b, "; flags: %s", strings.Join(flags, ", "))
		}
		fmt.Fprintln(&b)
	}
	return b.String()
}
