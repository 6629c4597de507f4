package main

import (
	"fmt"
	"os"

	"github.com/rocksleak/rocksleak/gate"
)

// stepSummaryEnv names the file GitHub Actions renders as the job summary
// (https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-job-summary).
const stepSummaryEnv = "GITHUB_STEP_SUMMARY"

// appendStepSummary appends the gate's Markdown report to the file named by
// $GITHUB_STEP_SUMMARY when that is set (whatever --format printed on
// stdout), so that a CI job shows the verdict without a redirect. Unset or
// empty: nothing is written. The file is created if missing, never truncated.
func appendStepSummary(rep *gate.Report) error {
	path := os.Getenv(stepSummaryEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("$%s: %w", stepSummaryEnv, err)
	}
	if err := gate.WriteMarkdown(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("$%s: %w", stepSummaryEnv, err)
	}
	return f.Close()
}
