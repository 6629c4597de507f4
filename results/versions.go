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
	// VsReference is the controlled verdict on the native heap against the
	// reference version of the table (analysis.ControlledAgainst: paired,
	// the native floor as margin; nil for the reference itself).
	VsReference *schema.Controlled
	// Judgement is the row's verdict with the evidence it rests on
	// (analysis.JudgeVersion); Verdict is its word.
	Judgement analysis.VersionJudgement
	// RunVerdict is the run's own verdict of the model (analysis.Decide).
	RunVerdict string
	// OptionsLive and ReadOptionsLive are the ledger's live offsets-CF
	// options and RocksDB.defaultReadOptions_ at the end.
	OptionsLive, ReadOptionsLive int64
	// NoOffsetsCF is set for a version of engine/jvm/kafkaversions/versions.tsv
	// without the offsets column family (4.0 to 4.2, read from their jars):
	// it has no offsets-CF options to leak and no status write at close, so
	// OptionsLive is not applicable and no close can fail.
	NoOffsetsCF bool
	Verdict     string // the row's: "leak", "no leak", "inconclusive", or "not analysed"
	Error       string // what ended the run early, if anything
}

// ReferenceVersion is the version of r's table every other row is judged
// against: analysis.DefaultReferenceVersion when the run has it, else the
// newest kafka-<version> model of the run ("" when there is none).
func ReferenceVersion(r *schema.Result) string {
	ref := ""
	for _, m := range r.Models {
		rn, err := spec.ParseRunName(m, spec.ModelNames())
		if err != nil || !rn.JVM() || rn.Synthetic || rn.ReadOptionsFix {
			continue
		}
		if rn.KafkaVersion == analysis.DefaultReferenceVersion {
			return m
		}
		if ref == "" || spec.CompareKafkaVersions(strings.TrimPrefix(m, "kafka-"), strings.TrimPrefix(ref, "kafka-")) > 0 {
			ref = m
		}
	}
	return ref
}

// VersionRows returns one row per kafka-<version> model of r, in run order;
// the Go engine's models and the +synthetic runs are left out. Each row is
// judged (analysis.JudgeVersion) against the reference version
// (ReferenceVersion), paired on samples (by run name) when given, else on
// the difference of the two fits; with samples, a native heap whose fit is
// flagged may be settled by its later half (analysis.JudgeVersion).
func VersionRows(r *schema.Result, samples map[string][]schema.Sample) []VersionRow {
	var rows []VersionRow
	ref := ReferenceVersion(r)
	for _, m := range r.Models {
		rn, err := spec.ParseRunName(m, spec.ModelNames())
		if err != nil || !rn.JVM() || rn.Synthetic {
			continue
		}
		run := r.Runs[m]
		row := VersionRow{Kafka: rn.KafkaVersion, Model: m, RocksDBJNI: run.RocksDBVersion, Lifecycles: run.Lifecycles,
			FailedCloses: run.FailedCloses, OptionsLive: run.LedgerAtEnd["options"],
			ReadOptionsLive: run.LedgerAtEnd["read_options"], RunVerdict: verdictWord(run), Error: run.Error}
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
		if m != ref && run.Fits != nil {
			row.VsReference = analysis.ControlledAgainst(r, samples, m, ref)
		}
		row.Verdict = row.RunVerdict
		if row.Native != nil && row.RSS != nil {
			e := analysis.VersionEvidence{Native: row.Native.PerLifecycle, NativeFlags: row.Native.Flags,
				RSS: row.RSS.PerLifecycle, VsReference: row.VsReference, OffsetsOptionsLive: row.OptionsLive,
				NoOffsetsCF: row.NoOffsetsCF}
			if fits, from, err := analysis.LaterHalfFits(samples[m], analysis.SignalNativeHeap); err == nil {
				if f, ok := fits[analysis.SignalNativeHeap]; ok && f.Total != nil {
					e.NativeLater = &analysis.LaterHalf{From: from, Fit: f.Total.Fit}
				}
			}
			row.Judgement = analysis.JudgeVersion(e, r.Floors)
			row.Verdict = row.Judgement.Word
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
		"native heap/failed close [95% CI]", "RSS/lifecycle [95% CI]", "vs reference (native heap, controlled)",
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
		vs := "reference"
		if c := row.VsReference; c != nil {
			ref := strings.TrimPrefix(c.Control, "kafka-")
			basis := ""
			if c.Basis != "" {
				basis = ", " + c.Basis
			}
			vs = fmt.Sprintf("%s vs %s: %s [%s, %s] (%.0f%%%s)", c.Verdict+controlledWithheld(*c), ref,
				fmtSignedQty(c.Difference.Value, "bytes"), fmtQty(c.Difference.Low, "bytes"),
				fmtQty(c.Difference.High, "bytes"), 100*schema.ControlledConfidence(*c), basis)
			if !c.Difference.Valid {
				vs = c.Verdict + " vs " + ref + ": no interval"
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

// VersionsText renders the versions table of r (rows as VersionRows(r,
// samples)) as plain text, then each row's evidence, then a line saying
// what each column is. Lines end in "\n".
func VersionsText(r *schema.Result, samples map[string][]schema.Sample) string {
	var b strings.Builder
	rows := VersionRows(r, samples)
	versionsTable(rows).Text(&b)
	b.WriteString(versionsEvidence(rows))
	b.WriteString(versionsLegend(r, rows))
	return b.String()
}

// VersionsMarkdown renders the same table as Markdown.
func VersionsMarkdown(r *schema.Result, samples map[string][]schema.Sample) string {
	var buf bytes.Buffer
	rows := VersionRows(r, samples)
	versionsTable(rows).Markdown(&buf)
	buf.WriteString("\n" + versionsEvidence(rows))
	buf.WriteString(versionsLegend(r, rows))
	return buf.String()
}

// versionsEvidence is one line per row: its verdict and what settled it.
func versionsEvidence(rows []VersionRow) string {
	var b strings.Builder
	b.WriteString("\n")
	for _, row := range rows {
		if row.Judgement.Word == "" {
			continue
		}
		fmt.Fprintf(&b, "%s: %s (the run's own verdict: %s)\n", row.Kafka, row.Judgement, row.RunVerdict)
	}
	return b.String()
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
		"the native heap's extra growth per failed close (fit on lifecycles and failed closes together); vs reference: "+
		"this version minus the reference version, paired at the same lifecycle counts when both ran the same schedule (99%%), else the difference of the two fits (95%%), with the native floor as margin; "+
		"where a flag that the run's rate changed (slope-not-constant, warmup-at-limit) withholds it, the later halves of both runs, "+
		"the paired series' later half or the two whole-run fits (named in the cell), when not flagged themselves and saying what "+
		"the whole run's interval says; live: the ownership ledger "+
		"at the end (Kafka's objects, isOwningHandle()); verdict: the row's, against floors native heap %s, RSS %s "+
		"per lifecycle (leak: native heap above its floor and a leak beyond that floor against the reference; no leak: "+
		"native heap below its floor, within ± that floor of the reference, no offsets options live; RSS, which the JVM's "+
		"own pages move, vetoes only when it settles the other way; inconclusive means the evidence does not settle it).\n",
		fmtQty(r.Floors.NativeHeap, "bytes"), fmtQty(r.Floors.RSS, "bytes")) + note
}
