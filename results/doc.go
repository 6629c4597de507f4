// Package results renders an analysed result (schema.Result with its samples)
// for people and for tools, and writes it: report.md (ReportMarkdown), the
// summary printed after a run (Summary), the PNG plots (Plots), samples.csv
// (SamplesCSV), the comparison of two results (CompareText, CompareMarkdown),
// Go benchmark lines for benchstat (BenchLines) and Bencher Metric Format
// (ToBMF, BMFJSON), the heap-profile tables (ProfileGrowth, ProfileDiff), and
// a run directory written whole (Render, WriteDir, WriteFileAtomic).
//
// It computes nothing the analysis did not and decides nothing: the fits,
// verdicts, comparisons and attribution are package analysis's, filled into
// the result before it gets here; the decisions made on results are packages
// of their own (gate, plan, rehearsal, sweep); the host facts a result
// carries are read by the run half (host.Provenance). It is pure Go (no cgo).
// Result files keep raw units; only the text for people scales bytes by 1024.
package results
