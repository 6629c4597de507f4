package results

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReportSaysWhatAFaultCostThatIsNotLost: a run with changelog records
// unavailable or writes failed gets a row saying so, apart from "records
// lost"; a run without (the control, the smoke golden) has no such row.
func TestReportSaysWhatAFaultCostThatIsNotLost(t *testing.T) {
	r := readTestResult(t, "smoke")
	assert.NotContains(t, string(ReportMarkdown(r)), "not lost")
	for _, run := range r.Runs {
		run.RecordsUnavailable, run.RecordsWriteFailed = 801, 7
		break
	}
	md := string(ReportMarkdown(r))
	assert.Contains(t, md, "not lost: unavailable / write failed")
	assert.Contains(t, md, "801 / 7")
}
