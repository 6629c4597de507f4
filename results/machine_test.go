package results

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/schema"
)

// TestReportShowsMachine: the host's facts appear in report.md's provenance
// table when the result has them, and results without them render as before
// (the golden reports).
func TestReportShowsMachine(t *testing.T) {
	r := readTestResult(t, "smoke")
	before := string(ReportMarkdown(r))
	assert.NotContains(t, before, "| cgroup limits |")
	r.Provenance.Machine = &schema.Machine{CPUModel: "Test CPU 9000", LogicalCPUs: 8, MemTotal: 16 << 30,
		MemAvailable: 12 << 30, Kernel: "6.1.0", Platform: "debian 12.11", CgroupMemoryMax: 4 << 30, CgroupCPUs: 1.5}
	md := string(ReportMarkdown(r))
	assert.Contains(t, md, "| CPU | Test CPU 9000, 8 logical CPUs |")
	assert.Contains(t, md, "| memory | 16.0 GiB total, 12.0 GiB available at the start |")
	assert.Contains(t, md, "| kernel | 6.1.0 (debian 12.11) |")
	assert.Contains(t, md, "| cgroup limits | memory 4.00 GiB, CPU 1.5 CPUs |")
}

// TestReportComparesOutsideRSS: runs watched from outside get a row with both
// peaks and their difference; results without the outside view get no section.
func TestReportComparesOutsideRSS(t *testing.T) {
	r := readTestResult(t, "smoke")
	assert.NotContains(t, string(ReportMarkdown(r)), "## Memory seen from outside")
	r.Runs["leaky"].OutsideRSSPeak, r.Runs["leaky"].RSSPeak = 100<<20, 99<<20
	r.Runs["leaky"].StoppedByGuard = "stopped by the memory guard: test"
	md := string(ReportMarkdown(r))
	assert.Contains(t, md, "## Memory seen from outside")
	assert.Contains(t, md, "| leaky | 100 MiB | 99.0 MiB | +1.00 MiB (1.0%) | stopped |")
	section := md[strings.Index(md, "## Memory seen from outside"):strings.Index(md, "## Provenance")]
	assert.NotContains(t, section, "| fixed |", "fixed was not watched")
}
