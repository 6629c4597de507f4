package table

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTableText(t *testing.T) {
	tb := New("l|r", "model", "slope")
	tb.Add("leaky", "+48.7 KiB")
	tb.Add("options-fix", "−1 B")
	var b strings.Builder
	tb.Text(&b)
	assert.Equal(t, "model            slope\nleaky        +48.7 KiB\noptions-fix       −1 B\n", b.String())
}

func TestMarkdownEscapesPipes(t *testing.T) {
	tb := New("l|r", "x", "y")
	tb.Add("a|b\nc", "1")
	var b bytes.Buffer
	tb.Markdown(&b)
	assert.Equal(t, "| x | y |\n|---|---:|\n| a\\|b c | 1 |\n\n", b.String())
}
