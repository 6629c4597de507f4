// Package table lays out rows of already formatted cells as Markdown or as
// aligned plain text: the one table renderer of the report, the summary and
// the comparison.
package table

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Table is rendered as Markdown or as aligned plain text. Cells are strings,
// already formatted: the table only lays them out.
type Table struct {
	align  []byte
	header []string
	rows   [][]string
}

// New returns an empty table. align has one letter per column, 'l' (left)
// or 'r' (right), separated by '|': "l|r|r".
func New(align string, header ...string) *Table {
	t := &Table{header: header}
	for _, a := range strings.Split(align, "|") {
		t.align = append(t.align, a[0])
	}
	return t
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// Markdown writes the table as a GitHub Markdown table followed by a blank
// line; pipes in cells are escaped and newlines become spaces.
func (t *Table) Markdown(b *bytes.Buffer) {
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + EscapeMarkdown(c) + " |")
		}
		b.WriteString("\n")
	}
	line(t.header)
	b.WriteString("|")
	for _, a := range t.align {
		if a == 'r' {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n")
}

// Text writes the table with columns padded to their widest cell (in
// runes), two spaces apart, trailing spaces trimmed; a header of empty
// strings is left out.
func (t *Table) Text(b *strings.Builder) {
	rows := t.rows
	if strings.Join(t.header, "") != "" {
		rows = append([][]string{t.header}, rows...)
	}
	width := make([]int, len(t.align))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				line.WriteString("  ")
			}
			if t.align[i] == 'r' {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// EscapeMarkdown makes s safe in a Markdown table cell: pipes escaped, newlines as spaces.
func EscapeMarkdown(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
