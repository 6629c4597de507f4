package schema

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTaskErrorTally: the same text is one example with its count, however
// many tasks it escaped from; a joined error whose lines repeat (a restore
// batch failing record by record on a full disk) collapses to its distinct
// lines with their counts; every example is capped; distinct texts beyond
// MaxTaskErrorExamples are not kept. Negative control: distinct texts stay
// apart, each counted once.
func TestTaskErrorTally(t *testing.T) {
	enospc := "segment store-1.5: IO error: No space left on device: While appending to file: …/MANIFEST-000001: No space left on device"
	// 121,572 characters in issue 44: one restore batch, every record failing alike.
	batch := strings.TrimSuffix(strings.Repeat(enospc+"\n", 1000), "\n")
	var tl TaskErrorTally
	for i := range 260 {
		tl.Add("task "+string(rune('0'+i%4))+" store-1", batch)
	}
	tl.Add("task 0 store-0", "Corruption: bad block")
	assert.Equal(t, []int64{260, 1}, tl.Counts)
	assert.Equal(t, "task 0 store-1: "+enospc+" (×1000)", tl.List[0])
	assert.Equal(t, "task 0 store-0: Corruption: bad block", tl.List[1])

	long := strings.Repeat("é", 400) // 800 bytes, 2 each
	tl.Add("task 1 store-0", long)
	for _, e := range tl.List {
		assert.LessOrEqual(t, len(e), MaxTaskErrorChars, e)
	}
	assert.True(t, strings.HasSuffix(tl.List[2], "…"))

	// The same fault on other segments and files: one example.
	tl.Add("task 2 store-1", strings.ReplaceAll(batch, "1.5", "1.60000"))
	assert.Equal(t, int64(261), tl.Counts[0])
	for i := range 10 {
		tl.Add("task 2 store-0", "distinct "+strings.Repeat("x", i))
	}
	assert.Len(t, tl.List, MaxTaskErrorExamples)
	assert.Equal(t, []int64{261, 1, 1, 1, 1}, tl.Counts, "negative control: distinct texts, one each")
}

// TestNormalizeTaskErrors: a JVM child's first few examples, the same text
// repeated, become one with its count; a Go child's, with counts, stay.
func TestNormalizeTaskErrors(t *testing.T) {
	s := Summary{TaskErrorList: []string{"a\na", "a\na", "b"}}
	s.NormalizeTaskErrors()
	assert.Equal(t, []string{"a (×2)", "b"}, s.TaskErrorList)
	assert.Equal(t, []int64{2, 1}, s.TaskErrorCounts)
	g := Summary{TaskErrorList: []string{"x", "y"}, TaskErrorCounts: []int64{7, 1}}
	g.NormalizeTaskErrors()
	assert.Equal(t, []int64{7, 1}, g.TaskErrorCounts)
}
