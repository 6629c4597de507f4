package rehearsal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/schema"
)

// Write writes rehearsal.json, report.md and rehearsal.png into dir,
// making it if needed.
func Write(dir string, rec *schema.Rehearsal) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "rehearsal.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rec); err != nil {
		return fmt.Errorf("report.md: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	if err := WritePNG(filepath.Join(dir, "rehearsal.png"), rec); err != nil {
		return fmt.Errorf("rehearsal.png: %w", err)
	}
	return nil
}

// Summary is the terminal's account of a rehearsal: per phase, each
// instance's model, lifecycles, lag and restart, the gate, and the decision.
func Summary(r *schema.Rehearsal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-26s %-8s %-10s %10s %9s %8s %10s %12s %6s\n", "phase", "instance", "model", "lifecycles", "records", "lost", "max lag", "restart", "stall")
	for _, ph := range r.Phases {
		for _, ip := range ph.Instances {
			restart := "-"
			if ip.RestartNs > 0 {
				restart = time.Duration(ip.RestartNs).Round(time.Millisecond).String()
			}
			fmt.Fprintf(&b, "%-26s %-8d %-10s %10d %9d %8d %10s %12s %6s\n", ph.Name, ip.Instance, ip.Model,
				ip.Summary.Lifecycles, ip.Summary.Records, ip.Summary.RecordsLost,
				(time.Duration(ip.MaxLagMs) * time.Millisecond).String(), restart,
				(time.Duration(ip.StallMs) * time.Millisecond).String())
		}
		if ph.Gate != nil {
			fmt.Fprintf(&b, "  gate %s: %s — %s\n", ph.Name, strings.ToUpper(ph.Gate.Outcome), ph.Gate.Reason)
		}
	}
	if rb := r.Rollback; rb != nil {
		fmt.Fprintf(&b, "\nrollback of instances %v: verified %t\n", rb.Instances, rb.Verified)
		for _, c := range rb.Checks {
			mark := "ok  "
			if !c.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", mark, c.Name, c.Detail)
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "error: %s\n", e)
	}
	fmt.Fprintf(&b, "\nstatus %s — %s (wall time %s)\n", r.Status, r.Decision, time.Duration(r.ElapsedNs).Round(time.Second))
	return b.String()
}
