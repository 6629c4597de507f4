package results

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// readTestResult loads testdata/<name>/result.json; each call returns a fresh
// copy that the test may change.
func readTestResult(t *testing.T, name string) *schema.Result {
	t.Helper()
	r, err := schema.Read(filepath.Join("testdata", name, "result.json"))
	require.NoError(t, err)
	return r
}

func TestReportGolden(t *testing.T) {
	for _, name := range []string{"smoke", "attribution"} {
		t.Run(name, func(t *testing.T) {
			r := readTestResult(t, name)
			golden.Check(t, filepath.Join("testdata", name, "report.md"), ReportMarkdown(r))
			golden.Check(t, filepath.Join("testdata", name, "summary.txt"), []byte(Summary(r)))
		})
	}
}

func TestReportDeterministic(t *testing.T) {
	r := readTestResult(t, "attribution")
	first := ReportMarkdown(r)
	for range 5 {
		require.Equal(t, string(first), string(ReportMarkdown(r)))
		require.Equal(t, Summary(r), Summary(r))
	}
}

func TestReportSections(t *testing.T) {
	r := readTestResult(t, "smoke")
	md := string(ReportMarkdown(r))
	assert.True(t, strings.HasPrefix(md, "# rocksleak report: smoke — complete\n"))
	for _, want := range []string{
		"## How to read this", "floor of 2.00 KiB/lifecycle", "floor of " + units.FormatBytes(r.Floors.RSS) + "/lifecycle",
		"## Verdicts", "## Runs", "## Fits", "### Native heap in use", "### Resident set size (RSS)",
		"### Go heap in use", "### Open file descriptors", "## Comparisons", "## Resident cost per open DB",
		"](native_heap.png)", "](rss.png)", "](ledger.png)", "## Scenario", "## Provenance",
		r.Provenance.ScenarioDigest, r.Provenance.RocksDBVersion,
	} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, md, "INTERRUPTED")
	assert.NotContains(t, md, "FAILED")
	// FDs are counts, not bytes.
	fds := md[strings.Index(md, "### Open file descriptors"):]
	fds = fds[:strings.Index(fds, "\n## ")]
	assert.Contains(t, fds, " FDs")
	assert.NotContains(t, fds, "KiB")
	// Every verdict appears with its reason.
	for _, m := range r.Models {
		assert.Contains(t, md, "| "+m+" | **"+verdictWord(r.Runs[m])+"** | ")
	}
}

func TestReportMarksInterruptedAndFailed(t *testing.T) {
	r := readTestResult(t, "smoke")
	r.Status, r.Interrupted = schema.StatusInterrupted, true
	r.Errors = []string{"fixed: interrupted by signal"}
	md := string(ReportMarkdown(r))
	assert.True(t, strings.HasPrefix(md, "# rocksleak report: smoke — INTERRUPTED\n"), md[:80])
	assert.Contains(t, md, "> **INTERRUPTED.**")
	assert.Contains(t, md, "> - fixed: interrupted by signal")
	assert.True(t, strings.HasPrefix(Summary(r), "smoke: INTERRUPTED\n"))

	// A failed model without samples has no fits and no verdict.
	r = readTestResult(t, "smoke")
	r.Status = schema.StatusFailed
	fixed := r.Runs["fixed"]
	fixed.Error, fixed.Fits, fixed.Verdict, fixed.Resident, fixed.Samples = "child exited with status 1", nil, nil, nil, 0
	r.Errors = []string{"fixed: child exited with status 1"}
	r.Comparisons = nil
	md = string(ReportMarkdown(r))
	assert.True(t, strings.HasPrefix(md, "# rocksleak report: smoke — FAILED\n"))
	assert.Contains(t, md, "> **FAILED.**")
	assert.Contains(t, md, "| fixed | **not analysed** | no samples to analyse: child exited with status 1 |")
	assert.Contains(t, md, "| fixed | not analysed |")
	assert.Contains(t, md, "- fixed: error: child exited with status 1")
	sum := Summary(r)
	assert.Contains(t, sum, "fixed: no samples to analyse: child exited with status 1")
	assert.Contains(t, sum, "not analysed")
}

func TestAttributionOnlyWhenPresent(t *testing.T) {
	smoke := readTestResult(t, "smoke")
	require.Empty(t, smoke.Attribution)
	assert.NotContains(t, string(ReportMarkdown(smoke)), "## Attribution")
	assert.NotContains(t, Summary(smoke), "attribution")

	att := readTestResult(t, "attribution")
	require.NotEmpty(t, att.Attribution)
	md := string(ReportMarkdown(att))
	assert.Contains(t, md, "## Attribution")
	assert.Contains(t, md, "| offsets-options leak per lifecycle (finally-fix − fixed) |")
	assert.Contains(t, md, "| handle leak per failed close (options-fix − fixed) |")
	assert.Contains(t, md, "| interaction per lifecycle |")
	sum := Summary(att)
	assert.Contains(t, sum, "attribution")
	assert.Contains(t, sum, "offsets-options leak per lifecycle")
}

func TestCalibrationOnlyWhenPresent(t *testing.T) {
	r := readTestResult(t, "smoke")
	assert.NotContains(t, string(ReportMarkdown(r)), "## Calibration")
	r.Calibration = []schema.Calibration{{Model: "fixed+synthetic", Control: "fixed", KnownPerLifecycle: 10240,
		NativeHeap:      stats.Estimate{Value: 10000, Low: 9000, High: 11000, Valid: true},
		NativeHeapError: -0.0234, RSS: stats.Estimate{Value: 12000, Low: 8000, High: 16000, Valid: true}, RSSError: 0.171875}}
	md := string(ReportMarkdown(r))
	assert.Contains(t, md, "## Calibration")
	assert.Contains(t, md, "| fixed+synthetic | fixed | 10.0 KiB | +9.77 KiB [8.79 KiB, 10.7 KiB] | -2.34% | +11.7 KiB [7.81 KiB, 15.6 KiB] | +17.2% |")
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{units.FormatBytes(0), "0 B"},
		{units.FormatBytes(9.5), "10 B"},
		{units.FormatBytes(512), "512 B"},
		{units.FormatBytes(1023), "1023 B"},
		{units.FormatBytes(1024), "1.00 KiB"},
		{units.FormatBytes(1536), "1.50 KiB"},
		{units.FormatBytes(-1536), "-1.50 KiB"},
		{units.FormatBytes(11.4 * 1024), "11.4 KiB"},
		{units.FormatBytes(123.4 * 1024), "123 KiB"},
		{units.FormatBytes(3 << 20), "3.00 MiB"},
		{units.FormatBytes(5 << 30), "5.00 GiB"},
		{units.FormatSignedBytes(1536), "+1.50 KiB"},
		{units.FormatSignedBytes(0), "+0 B"},
		{units.FormatSignedBytes(-512), "-512 B"},
		{units.FormatSignedBytes(-48.7 * 1024), "-48.7 KiB"},
		{fmtCount(67), "67"},
		{fmtCount(1234), "1234"},
		{fmtCount(12.34), "12.3"},
		{fmtCount(9.996), "10.0"},
		{fmtCount(0.9686), "0.969"},
		{fmtCount(0.004151), "0.00415"},
		{fmtCount(-0.0042842), "-0.00428"},
		{fmtCount(0.0001), "0"},
		{fmtQty(0.9686, "fds"), "0.969 FDs"},
		{fmtQty(1536, "bytes"), "1.50 KiB"},
		{fmtSignedQty(-2, "fds"), "-2 FDs"},
		{fmtSignedQty(8.56, "fds"), "+8.56 FDs"},
		{fmtEst(stats.Estimate{}, "bytes", true), "—"},
		{fmtEst(stats.Estimate{Value: 5}, "bytes", true), "+5 B (no CI)"},
		{fmtEst(stats.Estimate{Value: 11.2 * 1024, Low: 10.9 * 1024, High: 11.5 * 1024, Valid: true}, "bytes", true),
			"+11.2 KiB [10.9 KiB, 11.5 KiB]"},
		{fmtEst(stats.Estimate{Value: -78, Low: -6.9 * 1024, High: 7.05 * 1024, Valid: true}, "bytes", true),
			"-78 B [-6.90 KiB, 7.05 KiB]"},
		{fmtEst(stats.Estimate{Value: 0.97, Low: 0.77, High: 1.17, Valid: true}, "fds", true), "+0.970 FDs [0.770 FDs, 1.17 FDs]"},
		{fmtP(0.8002), "0.8"},
		{fmtP(0.0041465), "0.0041"},
		{fmtP(3e-9), "< 0.0001"},
		{fmtDuration(37676505), "37.7 ms"},
		{fmtDuration(1201160760), "1.20 s"},
		{fmtDuration(512), "512 ns"},
		{fmtPercent(0.1), "10%"},
		{fmtPercent(0.125), "12.5%"},
		{ledgerString(map[string]int64{"options": 67, "db": 4, "cf_handle": 8, "cache": 0}), "cf_handle=8 db=4 options=67"},
		{ledgerString(nil), "none"},
		{plural(1, "task"), "1 task"},
		{plural(4, "store"), "4 stores"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}

// TestRSSByOwnerOnlyWhenRecorded: a result whose samples carry the instrument's runtime bytes splits each model's RSS
// by owner in the report and the summary (raw RSS, the instrument's part, the code's part, the share, the Go heap);
// a result without them (written before they were recorded) has neither.
func TestRSSByOwnerOnlyWhenRecorded(t *testing.T) {
	smoke := readTestResult(t, "smoke")
	assert.NotContains(t, string(ReportMarkdown(smoke)), "## RSS by owner")
	assert.NotContains(t, Summary(smoke), "instrument")

	run := smoke.Runs["fixed"]
	run.RSSStart, run.RSSEnd = 24<<20, 40<<20
	run.RuntimeStart, run.RuntimeEnd = 6<<20, 10<<20
	run.GoHeapStart, run.GoHeapEnd = 1<<20, 2<<20
	md := string(ReportMarkdown(smoke))
	require.Contains(t, md, "## RSS by owner")
	assert.Contains(t, md, "| fixed | 24.0 MiB → 40.0 MiB (+16.0 MiB) | 6.00 MiB → 10.0 MiB (+4.00 MiB) | "+
		"18.0 MiB → 30.0 MiB (+12.0 MiB) | 25% | 1.00 MiB → 2.00 MiB (+1.00 MiB) |")
	assert.Contains(t, md, "| leaky | 23.4 MiB → 30.6 MiB (+7.16 MiB) | — | — | — | — | — |", "a run without the figure")
	sum := Summary(smoke)
	assert.Contains(t, sum, "fixed: 6.00 MiB → 10.0 MiB (+4.00 MiB), 25% of RSS 40.0 MiB; Go heap 1.00 MiB → 2.00 MiB (+1.00 MiB)")
	assert.NotContains(t, md, "the JVM's own mallocs", "no run read its runtime's mallocs: no native heap split")
	assert.Contains(t, md, "### Native heap in use (C allocator)\n", "the native heap's fit has its plain title")

	// A JVM child's run: its own mallocs split out of the native heap, in the report and the summary.
	run.GoHeapStart, run.GoHeapEnd = schema.Unavailable, schema.Unavailable
	run.NativeHeapStart, run.NativeHeapEnd = 12<<20, 30<<20
	run.RuntimeMallocStart, run.RuntimeMallocEnd = 7<<20, 16<<20
	md = string(ReportMarkdown(smoke))
	assert.Contains(t, md, "| fixed | 12.0 MiB → 30.0 MiB (+18.0 MiB) | 7.00 MiB → 16.0 MiB (+9.00 MiB) | "+
		"5.00 MiB → 14.0 MiB (+9.00 MiB) |")
	assert.Contains(t, Summary(smoke), "fixed: 6.00 MiB → 10.0 MiB (+4.00 MiB), 25% of RSS 40.0 MiB; its own mallocs 7.00 MiB → 16.0 MiB (+9.00 MiB)")
	assert.Contains(t, md, "### Native heap in use (C allocator), less the JVM's own mallocs where read (runtime_malloc)\n",
		"the native heap's fit says what it reads")
}

// TestAppScenarioShowsOnlyWhatRan: an application's run used its scenario's name, models, stop condition, sampling
// and seed, not its store, workload, failures or rebalances, so its report's Scenario section shows the description
// of the application in their place; a model's run (the negative control) keeps every row.
func TestAppScenarioShowsOnlyWhatRan(t *testing.T) {
	scenario := func(md string) string {
		s := md[strings.Index(md, "## Scenario"):]
		return s[:strings.Index(s, "\n## ")]
	}
	model := readTestResult(t, "smoke")
	ms := scenario(string(ReportMarkdown(model)))
	for _, row := range []string{"| store |", "| workload |", "| failures |", "| rebalances |", "| stop after |"} {
		assert.Contains(t, ms, row)
	}
	assert.NotContains(t, ms, "| application |")

	app := readTestResult(t, "smoke")
	app.Scenario.Description = "Your application com.example.App (app file app.yaml) on Kafka's own TopologyTestDriver"
	for _, run := range app.Runs {
		run.App = &schema.AppCounts{StoreOpens: 10}
	}
	as := scenario(string(ReportMarkdown(app)))
	for _, row := range []string{"| store |", "| workload |", "| failures |", "| rebalances |"} {
		assert.NotContains(t, as, row)
	}
	for _, row := range []string{"| application | Your application com.example.App", "| stop after |", "| sampling |", "| seed |"} {
		assert.Contains(t, as, row)
	}
}
