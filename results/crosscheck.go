package results

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// CrossPair is one leak state seen by both engines: the Go engine's model
// on RocksDB 7.8.3 and the JVM engine's Kafka version on rocksdbjni.
type CrossPair struct {
	Label string // "leaky (4.3.0)"
	Go    string // "leaky"
	JVM   string // "kafka-4.3.0"
}

// CrossPairs are the pairs of the cross-check: 4.3.0 as it leaks, 4.3.1 as
// it ships (the releases of spec.Leaky and spec.Fixed).
var CrossPairs = []CrossPair{crossPair(spec.Leaky), crossPair(spec.Fixed)}

// crossPair is m beside its release's jars.
func crossPair(m spec.Model) CrossPair {
	return CrossPair{Label: m.Release + " (" + m.Name + ")", Go: m.Name, JVM: spec.KafkaPrefix + m.Release}
}

// CrosscheckMarkdown renders the cross-check of r (a run of the four models
// of CrossPairs) and its samples: per pair, the Go engine beside the JVM
// engine, the measured rows from the run, then the rows read from the jars
// and the libraries (the notes say where each comes from). Missing models
// render as "not run".
func CrosscheckMarkdown(r *schema.Result, samples map[string][]schema.Sample) string {
	header := []string{"measured (seed " + fmt.Sprint(r.Provenance.Seed) + ")"}
	align := "l"
	var cols []string
	for _, p := range CrossPairs {
		header = append(header, p.Label+": Go `"+p.Go+"`", p.Label+": JVM `"+p.JVM+"`")
		align += "|r|r"
		cols = append(cols, p.Go, p.JVM)
	}
	t := table.New(align, header...)
	row := func(name string, cell func(run *schema.Run, model string) string) {
		cells := []string{name}
		for _, m := range cols {
			run := r.Runs[m]
			if run == nil {
				cells = append(cells, "not run")
				continue
			}
			cells = append(cells, cell(run, m))
		}
		t.Add(cells...)
	}
	row("RocksDB", func(run *schema.Run, _ string) string { return orDash(run.RocksDBVersion) })
	row("lifecycles (failed closes)", func(run *schema.Run, _ string) string {
		return fmt.Sprintf("%d (%d)", run.Lifecycles, run.FailedCloses)
	})
	row("native heap per lifecycle [95% CI]", func(run *schema.Run, _ string) string {
		return totalSlope(run, analysis.SignalNativeHeap)
	})
	row("RSS per lifecycle [95% CI]", func(run *schema.Run, _ string) string { return totalSlope(run, analysis.SignalRSS) })
	row("native heap per failed close [95% CI]", func(run *schema.Run, _ string) string {
		f, ok := run.Fits[analysis.SignalNativeHeap]
		if !ok || run.FailedCloses == 0 {
			return "—"
		}
		return fmtEst(f.PerFailedClose, "bytes", true)
	})
	row("resident native heap per open DB", func(run *schema.Run, _ string) string {
		if run.Resident == nil {
			return "—"
		}
		return fmtQty(run.Resident.NativeHeapPerDB, "bytes")
	})
	row("resident RSS per open DB", func(run *schema.Run, _ string) string {
		if run.Resident == nil {
			return "—"
		}
		return fmtQty(run.Resident.RSSPerDB, "bytes")
	})
	row("FDs per open DB", func(_ *schema.Run, m string) string {
		if v := analysis.FDsPerOpenDB(samples[m]); !math.IsNaN(v) {
			return fmtCount(v)
		}
		return "—"
	})
	row("live natives at end (ledger)", func(run *schema.Run, _ string) string { return ledgerString(run.LedgerAtEnd) })
	row("verdict", func(run *schema.Run, _ string) string { return verdictWord(run) })
	var buf bytes.Buffer
	t.Markdown(&buf)
	var ctl []string
	for _, c := range r.Controlled {
		if c.Signal == analysis.SignalNativeHeap {
			ctl = append(ctl, fmt.Sprintf("- `%s` vs `%s` (%s): %s, %s [%s, %s] per lifecycle (%.0f%%)", c.Model, c.Control,
				c.Differs, c.Verdict, fmtSignedQty(c.Difference.Value, "bytes"), fmtQty(c.Difference.Low, "bytes"),
				fmtQty(c.Difference.High, "bytes"), 100*schema.ControlledConfidence(c)))
		}
	}
	if len(ctl) > 0 {
		buf.WriteString("\nControlled verdicts of the same run (native heap, model − control):\n\n" + strings.Join(ctl, "\n") + "\n")
	}
	return buf.String()
}
