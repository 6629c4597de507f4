package main

import (
	"strings"
	"testing"
)

// TestFailedCloseRefusesAPairThatIsNotOneSchedule: failedclose takes a
// faulty and a control run of one scenario and seed, and names the field
// that breaks the pair, exit 2. Checked failing: with checkFailedClosePair's
// control-rate case removed, the smoke run against itself went on to the
// estimate and was refused for another reason.
func TestFailedCloseRefusesAPairThatIsNotOneSchedule(t *testing.T) {
	smoke, seed7 := "../../results/testdata/smoke", "../../results/testdata/smoke-seed7"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"failedclose", smoke}, "two run directories"},
		{[]string{"failedclose", smoke, smoke}, "close_failure_rate: the control run's is 0.1, want 0"},
		{[]string{"failedclose", smoke, seed7}, "seed"},
		{[]string{"failedclose", smoke, t.TempDir()}, "result.json"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}
