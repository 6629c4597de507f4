package results

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/engine/jvm/kafkaversions"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// VersionRow is one Kafka version's line of the versions table ("which
// versions leak, and how much"), computed from one run of its
// kafka-<version> model. Figures are the run's own, in raw units.
type VersionRow struct {
	Kafka      string // "4.3.0"
	Model      string // the run name, "kafka-4.3.0"
	RocksDBJNI string // as the child read it at run time
	Lifecycles int64
	// FailedCloses counts closes whose status write RocksDB refused.
	FailedCloses int64
	// Native and RSS are the whole growth per lifecycle (the lifecycle-only
	// fit the verdict is decided on); PerFailedClose is native heap per
	// failed close from the two-counter fit (lifecycles and failed closes as
	// regressors). Nil when the run has no such fit.
	Native, RSS    *schema.SignalFit
	PerFailedClose *schema.SignalFit
	// VsNext is the controlled verdict on the native heap against the next
	// newer version in the same run (nil for the newest, or without one).
	VsNext *schema.Controlled
	// OptionsLive and ReadOptionsLive are the ledger's live offsets-CF
	// options and RocksDB.defaultReadOptions_ at the end.
	OptionsLive, ReadOptionsLive int64
	// NoOffsetsCF is set for a version of engine/jvm/kafkaversions/versions.tsv
	// without the offsets column family (4.0 to 4.2, read from their jars):
	// it has no offsets-CF options to leak and no status write at close, so
	// OptionsLive is not applicable and no close can fail.
	NoOffsetsCF bool
	Verdict     string // "leak", "no leak", "inconclusive", or "not analysed"
	Error       string // what ended the run early, if anything
}

// VersionRows returns one row per kafka-<version> model of r, in run order;
// the Go engine's models and the +synthetic runs are left out.
func VersionRows(r *schema.Result) []VersionRow {
	var rows []VersionRow
	for _, m := range r.Models {
		rn, err := spec.ParseRunName(m, spec.ModelNames())
		if err != nil || !rn.JVM() || rn.Synthetic {
			continue
		}
		run := r.Runs[m]
		row := VersionRow{Kafka: rn.KafkaVersion, Model: m, RocksDBJNI: run.RocksDBVersion, Lifecycles: run.Lifecycles,
			FailedCloses: run.FailedCloses, OptionsLive: run.LedgerAtEnd["options"],
			ReadOptionsLive: run.LedgerAtEnd["read_options"], Verdict: verdictWord(run), Error: run.Error}
		if v, ok := kafkaversions.Lookup(rn.KafkaVersion); ok && !v.OffsetsCF {
			row.NoOffsetsCF = true
		}
		if f, ok := run.Fits[analysis.SignalNativeHeap]; ok {
			two := f
			row.PerFailedClose = &two
			row.Native = f.Total
		}
		if f, ok := run.Fits[analysis.SignalRSS]; ok {
			row.RSS = f.Total
		}
		for i := range r.Controlled {
			c := &r.Controlled[i]
			if c.Model == m && c.Signal == analysis.SignalNativeHeap && strings.HasSuffix(c.Differs, "'s changes missing") {
				row.VsNext = c
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// versionsTable builds the table of rows; the same cells render as text and
// Markdown.
func versionsTable(rows []VersionRow) *table.Table {
	t := table.New("l|l|r|r|r|r|r|l|r|r|l",
		"kafka", "rocksdbjni", "lifecycles", "failed closes", "native heap/lifecycle [95% CI]",
		"native heap/failed close [95% CI]", "RSS/lifecycle [95% CI]", "vs next version (native heap, controlled)",
		"offsets options live", "read options live", "verdict")
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, row := range rows {
		native, rss, perFC := "—", "—", "—"
		if row.Native != nil {
			native = fmtEst(row.Native.PerLifecycle, "bytes", true)
		}
		if row.RSS != nil {
			rss = fmtEst(row.RSS.PerLifecycle, "bytes", true)
		}
		if row.PerFailedClose != nil && row.FailedCloses > 0 {
			perFC = fmtEst(row.PerFailedClose.PerFailedClose, "bytes", true)
		}
		vs := "—"
		if c := row.VsNext; c != nil {
			next := strings.TrimSuffix(c.Differs, "'s changes missing")
			vs = fmt.Sprintf("%s vs %s: %s [%s, %s] (%.0f%%)", c.Verdict, next,
				fmtSignedQty(c.Difference.Value, "bytes"), fmtQty(c.Difference.Low, "bytes"),
				fmtQty(c.Difference.High, "bytes"), 100*schema.ControlledConfidence(*c))
			if !c.Difference.Valid {
				vs = c.Verdict + " vs " + next + ": no interval"
			}
		}
		verdict := row.Verdict
		if row.Error != "" {
			verdict += " (run failed: " + row.Error + ")"
		}
		options := i(row.OptionsLive)
		if row.NoOffsetsCF {
			options = "n/a"
		}
		t.Add(row.Kafka, orDash(row.RocksDBJNI), i(row.Lifecycles), i(row.FailedCloses), native, perFC, rss, vs,
			options, i(row.ReadOptionsLive), verdict)
	}
	return t
}

// VersionsText renders the versions table of r as plain text, with a line
// under it saying what each column is. Lines end in "\n".
func VersionsText(r *schema.Result) string {
	var b strings.Builder
	rows := VersionRows(r)
	versionsTable(rows).Text(&b)
	b.WriteString(versionsLegend(r, rows))
	return b.String()
}

// VersionsMarkdown renders the same table as Markdown.
func VersionsMarkdown(r *schema.Result) string {
	var buf bytes.Buffer
	rows := VersionRows(r)
	versionsTable(rows).Markdown(&buf)
	buf.WriteString("\n" + versionsLegend(r, rows))
	return buf.String()
}

func versionsLegend(r *schema.Result, rows []VersionRow) string {
	var pre []string
	for _, row := range rows {
		if row.NoOffsetsCF {
			pre = append(pre, row.Kafka)
		}
	}
	note := ""
	if len(pre) > 0 {
		note = fmt.Sprintf("offsets options n/a: no offsets column family in %s (engine/jvm/kafkaversions/versions.tsv, read from "+
			"the jars), so neither KAFKA-20616 leak exists there and no close writes a status that could fail; lifecycles "+
			"are counted as for 4.3 (store closes, segments expired by Kafka's own segmented store).\n",
			strings.Join(pre, ", "))
	}
	return fmt.Sprintf("\nper lifecycle: the whole growth per store lifecycle (the fit the verdict is decided on); per failed close: "+
		"the native heap's extra growth per failed close (fit on lifecycles and failed closes together); vs next version: "+
		"this version minus the next newer one of the run, sampled at the same lifecycle counts; live: the ownership ledger "+
		"at the end (Kafka's objects, isOwningHandle()); verdict: the run's own, against floors native heap %s, RSS %s "+
		"per lifecycle; inconclusive means the intervals do not settle it.\n",
		fmtQty(r.Floors.NativeHeap, "bytes"), fmtQty(r.Floors.RSS, "bytes")) + note
}
