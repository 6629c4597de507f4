package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

const failedCloseUsage = `usage: rocksleak failedclose [--md] FAULTY_DIR CONTROL_DIR

The cost of one failed close, per model, from a controlled pair: two run
directories of the same scenario, seed and models, the first with closes
failing, the second with close_failure_rate 0. For example:

  rocksleak run --scenario kafka-20616 --models kafka-4.3.1,kafka-4.3.0 --lifecycles 600 --set close_failure_rate=0.2 --out runs/fc-faulty
  rocksleak run --scenario kafka-20616 --models kafka-4.3.1,kafka-4.3.0 --lifecycles 600 --set close_failure_rate=0 --out runs/fc-control
  rocksleak failedclose runs/fc-faulty runs/fc-control

`

// failedCloseCmd prints, per model of a faulty/control pair of run
// directories, the bytes per failed close (analysis.PerFailedClose) and the
// corrupted-task restores each failed close brings about.
func failedCloseCmd(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("failedclose", flag.ContinueOnError)
	fs.SetOutput(stderr)
	md := fs.Bool("md", false, "print the table as Markdown")
	fs.Usage = func() { fmt.Fprint(stderr, failedCloseUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() != 2 {
		return usagef("failedclose takes two run directories: FAULTY_DIR CONTROL_DIR")
	}
	var rs [2]*schema.Result
	var ss [2]map[string][]schema.Sample
	for i, dir := range fs.Args() {
		r, err := schema.Read(filepath.Join(dir, "result.json"))
		if err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		if ss[i], err = schema.ReadSamplesCSV(filepath.Join(dir, "samples.csv")); err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		rs[i] = r
	}
	if err := checkFailedClosePair(rs[0], rs[1]); err != nil {
		return err
	}
	return writeFailedCloseTable(stdout, rs, ss, *md)
}

// checkFailedClosePair refuses a pair that is not one schedule run twice.
func checkFailedClosePair(f, c *schema.Result) error {
	switch {
	case f.Scenario.Name != c.Scenario.Name:
		return usagef("scenario: faulty run %q, control run %q: a pair is one scenario", f.Scenario.Name, c.Scenario.Name)
	case f.Provenance.Seed != c.Provenance.Seed:
		return usagef("seed: faulty run %d, control run %d: a pair is one seed", f.Provenance.Seed, c.Provenance.Seed)
	case !(f.Scenario.CloseFailureRate > 0):
		return usagef("close_failure_rate: the faulty run's is %v, want > 0", f.Scenario.CloseFailureRate)
	case c.Scenario.CloseFailureRate != 0:
		return usagef("close_failure_rate: the control run's is %v, want 0", c.Scenario.CloseFailureRate)
	}
	return nil
}

// writeFailedCloseTable renders one row per model both runs ran, aligned
// text or Markdown.
func writeFailedCloseTable(w io.Writer, rs [2]*schema.Result, ss [2]map[string][]schema.Sample, md bool) error {
	rows := [][]string{{"engine", "model", "failed closes", "native heap per failed close [95%]", "RSS per failed close [95%]",
		"restores per failed close", "restore time per failed close [95%]", "records replayed per failed close",
		"native heap after a restore [95%]"}}
	for _, m := range rs[0].Models {
		fr, cr := rs[0].Runs[m], rs[1].Runs[m]
		if fr == nil || cr == nil {
			continue
		}
		nh, err := analysis.PerFailedClose(ss[0][m], ss[1][m], analysis.SignalNativeHeap)
		if err != nil {
			rows = append(rows, []string{engineOf(m), m, err.Error()})
			continue
		}
		rss, err := analysis.PerFailedClose(ss[0][m], ss[1][m], analysis.SignalRSS)
		if err != nil {
			return err
		}
		n := float64(nh.FailedCloses)
		restores := float64(fr.Restore.Count-cr.Restore.Count) / n
		// The median restore's time: the JVM child keeps no per-restore
		// durations in result.json, only their median and its interval.
		p50 := func(ns int64) string { return time.Duration(float64(ns) * restores).Round(time.Microsecond).String() }
		rows = append(rows, []string{engineOf(m), m, fmt.Sprint(nh.FailedCloses),
			kib(nh.PerFailedClose), kib(rss.PerFailedClose), fmt.Sprintf("%.3f", restores),
			fmt.Sprintf("%s [%s, %s]", p50(fr.Restore.P50Ns), p50(fr.Restore.P50LowNs), p50(fr.Restore.P50HighNs)),
			fmt.Sprintf("%.0f", float64(fr.Restore.Records-cr.Restore.Records)/n), kib(nh.WhileRestoring)})
	}
	if len(rows) == 1 {
		return usagef("the two runs share no model")
	}
	if err := renderRows(w, rows, md); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nBytes per failed close: the paired difference faulty − control per record written over failed closes per record (restores, their lifecycles and timer entries included).")
	fmt.Fprintln(w, "Restore time per failed close: restores per failed close × the faulty run's median restore [its 95% interval].")
	fmt.Fprintln(w, "After a restore: the paired difference above its line at the first sample after a restore, against the other samples (per restore).")
	return nil
}

// renderRows writes rows (the first the header) aligned, or as a Markdown table.
func renderRows(w io.Writer, rows [][]string, md bool) error {
	if md {
		for i, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
			if i == 0 {
				fmt.Fprintf(w, "|%s\n", strings.Repeat(" --- |", len(r)))
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func engineOf(model string) string {
	if rn, err := spec.ParseRunName(model, spec.ModelNames()); err == nil && rn.JVM() {
		return "jvm"
	}
	return "go"
}

// kib renders an estimate in KiB with its interval ("n/a" when it has none).
func kib(e stats.Estimate) string {
	if !e.Valid {
		return "n/a"
	}
	return fmt.Sprintf("%+.2f KiB [%+.2f, %+.2f]", e.Value/1024, e.Low/1024, e.High/1024)
}
