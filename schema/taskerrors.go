package schema

import (
	"fmt"
	"regexp"
	"strings"
)

// numbers are what an example's key leaves out (see TaskErrorTally.Add).
var numbers = regexp.MustCompile(`[0-9]+`)

// Limits of a summary's task error examples (Summary.TaskErrorList).
const (
	// MaxTaskErrorExamples is how many distinct task errors a summary spells out.
	MaxTaskErrorExamples = 5
	// MaxTaskErrorChars caps one example's text, in bytes (cut at a rune
	// boundary, marked with "…").
	MaxTaskErrorChars = 300
)

// TaskErrorTally keeps a run's task errors as Summary.TaskErrorList and
// Summary.TaskErrorCounts carry them: distinct messages, each collapsed and
// capped (see CollapseError), in order of first occurrence, at most
// MaxTaskErrorExamples of them, each with the number of errors that had its
// text. Errors beyond the distinct ones kept are counted by their holder
// (Summary.TaskErrors), not here. The zero value is empty and ready.
type TaskErrorTally struct {
	List   []string
	Counts []int64
	index  map[string]int
}

// Add counts one task error: where names where it escaped (e.g. "task 3
// store-1"), msg its text. Errors whose texts differ only in their numbers
// (a segment's id, a file's number in its path) share an example, which
// shows the first one's text and where it escaped.
func (t *TaskErrorTally) Add(where, msg string) {
	msg = CollapseError(msg)
	key := numbers.ReplaceAllString(msg, "#")
	if i, ok := t.index[key]; ok {
		t.Counts[i]++
		return
	}
	if len(t.List) >= MaxTaskErrorExamples {
		return
	}
	if t.index == nil {
		t.index = map[string]int{}
	}
	t.index[key] = len(t.List)
	ex := msg
	if where != "" {
		ex = capText(where + ": " + msg)
	}
	t.List = append(t.List, ex)
	t.Counts = append(t.Counts, 1)
}

// CollapseError is an error's text as an example shows it: the lines of a
// joined error (errors.Join puts one per line) each once, in order of first
// occurrence, those that repeat followed by "(×N)", joined with "; ", and the
// whole capped at MaxTaskErrorChars. A restore batch whose every record
// failed on the same full disk is then one line, not 1,000.
func CollapseError(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	var order []string
	n := map[string]int{}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if n[l] == 0 {
			order = append(order, l)
		}
		n[l]++
	}
	for i, l := range order {
		if n[l] > 1 {
			order[i] = fmt.Sprintf("%s (×%d)", l, n[l])
		}
	}
	return capText(strings.Join(order, "; "))
}

// capText cuts s to MaxTaskErrorChars bytes at a rune boundary, ending in "…".
func capText(s string) string {
	if len(s) <= MaxTaskErrorChars {
		return s
	}
	cut := MaxTaskErrorChars - len("…")
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// NormalizeTaskErrors brings a summary's examples to the tally's form when its
// child did not (a JVM child sends its first few task errors as they came):
// each collapsed and capped, the same text once, its count the number of
// examples that had it (a lower bound: the child kept only the first few).
// Examples that already carry counts are left as they are.
func (s *Summary) NormalizeTaskErrors() {
	if len(s.TaskErrorList) == 0 || len(s.TaskErrorCounts) == len(s.TaskErrorList) {
		return
	}
	var t TaskErrorTally
	for _, e := range s.TaskErrorList {
		t.Add("", e)
	}
	s.TaskErrorList, s.TaskErrorCounts = t.List, t.Counts
}
