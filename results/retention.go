package results

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
)

// The allocator's retention at the end is "large", and the terminal summary mentions it, when the probe released at
// least LargeRetentionFraction of the RSS before it and at least LargeRetentionMinBytes.
const (
	LargeRetentionFraction = 0.10
	LargeRetentionMinBytes = 1 << 20
)

// LargeRetention reports whether a retention probe released a large part of the RSS (see LargeRetentionFraction).
func LargeRetention(p *schema.Retention) bool {
	return p != nil && p.Error == "" && p.Released >= LargeRetentionMinBytes &&
		p.ReleasedFraction() >= LargeRetentionFraction
}

// reportRetention writes the section "Allocator retention at the end" when a run carries a probe.
func reportRetention(b *bytes.Buffer, r *schema.Result) {
	t := table.New("l|l|l|r|r|r|r|r", "model", "allocator", "probe", "RSS before", "RSS after",
		"released (of RSS)", "allocator free before → after", "native heap in use")
	rows := 0
	var errs []string
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.Retention == nil {
			continue
		}
		p := run.Retention
		if p.Error != "" {
			errs = append(errs, fmt.Sprintf("%s: the probe failed: %s", m, p.Error))
			continue
		}
		t.Add(m, string(p.Allocator), "`"+p.Action+"`", units.FormatBytes(float64(p.RSSBefore)), units.FormatBytes(float64(p.RSSAfter)),
			fmt.Sprintf("%s (%s)", units.FormatSignedBytes(float64(p.Released)), fmtPercent(p.ReleasedFraction())),
			fmt.Sprintf("%s → %s", units.FormatBytes(float64(p.AllocatorFreeBefore)), units.FormatBytes(float64(p.AllocatorFreeAfter))),
			units.FormatBytes(float64(p.NativeHeapBefore)))
		rows++
	}
	if rows == 0 && len(errs) == 0 {
		return
	}
	b.WriteString("## Allocator retention at the end\n\n")
	b.WriteString("After its last sample, each model's child asked its C allocator to give its free memory back " +
		"(glibc: `malloc_trim(0)`; jemalloc: a purge of every arena) and read RSS just before and after, its stores " +
		"still open. *Released* is the part of the final RSS that was free memory the allocator held, not memory in " +
		"use. *Allocator free* is glibc's free bytes in its arenas (`mallinfo2` fordblks, resident or not; the trim " +
		"returns their pages but keeps them free, so it barely moves) or jemalloc's resident bytes beyond those " +
		"allocated. The probe changes the heap, so it is taken after the series: no fit or verdict includes it.\n\n")
	if rows > 0 {
		t.Markdown(b)
	}
	for _, e := range errs {
		fmt.Fprintf(b, "- %s\n", table.EscapeMarkdown(e))
	}
	if len(errs) > 0 {
		b.WriteString("\n")
	}
}

// summaryRetention mentions, in the terminal summary, each run whose allocator retention at the end was large.
func summaryRetention(b *strings.Builder, r *schema.Result) {
	first := true
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || !LargeRetention(run.Retention) {
			continue
		}
		if first {
			b.WriteString("\nallocator retention at the end (report.md, \"Allocator retention at the end\"):\n")
			first = false
		}
		p := run.Retention
		fmt.Fprintf(b, "  %s: %s of its %s RSS (%s) was free memory the allocator held, not memory in use (%s gave it back)\n",
			m, units.FormatBytes(float64(p.Released)), units.FormatBytes(float64(p.RSSBefore)), fmtPercent(p.ReleasedFraction()), p.Action)
	}
}
