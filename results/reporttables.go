package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
)

// attributionTable has one row per quantity and one column per signal.
func attributionTable(as []schema.Attribution) *table.Table {
	align := "l"
	header := []string{""}
	for _, a := range as {
		align += "|r"
		header = append(header, analysis.Describe(a.Signal).Name)
	}
	t := table.New(align, header...)
	row := func(name string, f func(a schema.Attribution) string) {
		cells := []string{name}
		for _, a := range as {
			cells = append(cells, f(a))
		}
		t.Add(cells...)
	}
	row("offsets-options leak per lifecycle (finally-fix − fixed)", func(a schema.Attribution) string {
		return fmtEst(a.OptionsLeakPerLifecycle, analysis.Describe(a.Signal).Unit, true)
	})
	row("handle leak per lifecycle (options-fix − fixed)", func(a schema.Attribution) string {
		return fmtEst(a.HandleLeakPerLifecycle, analysis.Describe(a.Signal).Unit, true)
	})
	row("handle leak per failed close (options-fix − fixed)", func(a schema.Attribution) string {
		return fmtEst(a.HandleLeakPerFailedClose, analysis.Describe(a.Signal).Unit, true)
	})
	row("leaky total per lifecycle (leaky − fixed)", func(a schema.Attribution) string {
		return fmtEst(a.LeakyTotalPerLifecycle, analysis.Describe(a.Signal).Unit, true)
	})
	row("interaction per lifecycle", func(a schema.Attribution) string {
		if a.InteractionInterval.Valid {
			return fmtEst(a.InteractionInterval, analysis.Describe(a.Signal).Unit, true)
		}
		return fmtSignedQty(a.Interaction, analysis.Describe(a.Signal).Unit)
	})
	return t
}

func calibrationTable(cs []schema.Calibration) *table.Table {
	t := table.New("l|l|r|r|r|r|r", "model", "control", "known per lifecycle", "native heap [95% CI]", "error",
		"RSS [95% CI]", "error")
	for _, c := range cs {
		t.Add(c.Model, c.Control, units.FormatBytes(c.KnownPerLifecycle), fmtEst(c.NativeHeap, "bytes", true),
			fmtSignedPercent(c.NativeHeapError), fmtEst(c.RSS, "bytes", true), fmtSignedPercent(c.RSSError))
	}
	return t
}

func hasResident(r *schema.Result) bool {
	for _, m := range r.Models {
		if r.Runs[m].Resident != nil {
			return true
		}
	}
	return false
}

// scenarioTable is the report's Scenario section: every field the run used. An application's run (app) uses the
// scenario's name, models, stop condition, sampling and seed only (its topology, steps and failures are the
// application's, which the scenario's description names), so its table shows those and the description, never the
// store, workload, failures or rebalances a model would have run.
func scenarioTable(s scenarios.Scenario, app bool) *table.Table {
	t := table.New("l|l", "", "")
	if app {
		t.Add("name", s.Name)
		t.Add("models", strings.Join(s.Models, ", "))
		t.Add("application", orDash(s.Description))
		addStopAndSampling(t, s)
		t.Add("seed", strconv.FormatInt(s.Seed, 10))
		return t
	}
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	store := fmt.Sprintf("%s, %s × %s per task", s.Store, plural(s.Tasks, "task"), plural(s.StoresPerTask, "store"))
	if s.Store == scenarios.StoreWindow {
		store += fmt.Sprintf(", retention %d ms, segment interval %d ms, %d live segments per store",
			s.RetentionMs, s.SegmentInterval(), s.LiveSegments())
	}
	t.Add("name", s.Name)
	t.Add("models", strings.Join(s.Models, ", "))
	t.Add("store", store)
	t.Add("workload", fmt.Sprintf("%s of %d B per store per step of %d ms, %s, %s",
		plural(s.RecordsPerStep, "record"), s.ValueBytes, s.StepMs, plural(s.KeySpread, "key"),
		plural(s.ChangelogPartitions, "changelog partition")))
	t.Add("failures", fmt.Sprintf("close %s %s, cascade %s; init %s; exactly-once %s; leak semantics %s",
		fmtPercent(s.CloseFailureRate), s.CloseFailureKind, yesNo(s.Cascade), fmtPercent(s.InitFailureRate),
		yesNo(s.ExactlyOnce), s.LeakSemantics))
	reb := "never"
	if s.RebalanceEverySteps > 0 {
		reb = fmt.Sprintf("every %d steps, %s of tasks", s.RebalanceEverySteps, fmtPercent(s.RebalanceTasks))
	}
	t.Add("rebalances", reb)
	addStopAndSampling(t, s)
	if s.SyntheticLeakBytes != 0 || s.RestoreScratchBytes != 0 {
		t.Add("calibration", fmt.Sprintf("synthetic leak %s per lifecycle, restore scratch %s",
			units.FormatBytes(float64(s.SyntheticLeakBytes)), units.FormatBytes(float64(s.RestoreScratchBytes))))
	}
	t.Add("seed", strconv.FormatInt(s.Seed, 10))
	return t
}

// addStopAndSampling adds the scenario's stop condition and sampling rows.
func addStopAndSampling(t *table.Table, s scenarios.Scenario) {
	var stop []string
	if s.Lifecycles > 0 {
		stop = append(stop, fmt.Sprintf("%d lifecycles", s.Lifecycles))
	}
	if s.Duration > 0 {
		stop = append(stop, s.Duration.String())
	}
	t.Add("stop after", orDash(strings.Join(stop, " or ")))
	t.Add("sampling", fmt.Sprintf("every %s and every %d ms", plural(s.SampleEveryLifecycles, "lifecycle"), s.SampleIntervalMs))
}

// plural renders "1 task", "4 tasks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func provenanceTable(p schema.Provenance) *table.Table {
	t := table.New("l|l", "", "")
	t.Add("RocksDB", orDash(p.RocksDBVersion))
	t.Add("grocksdb", orDash(p.GrocksdbVersion))
	t.Add("Go", orDash(p.GoVersion))
	t.Add("commit", orDash(p.GitCommit))
	t.Add("host", fmt.Sprintf("%s (%s/%s, %d CPUs)", orDash(p.Host), p.OS, p.Arch, p.CPUs))
	if m := p.Machine; m != nil {
		machineRows(t, m)
	}
	t.Add("allocator", orDash(string(p.Allocator)))
	t.Add("seed", strconv.FormatInt(p.Seed, 10))
	t.Add("scenario digest", "`"+orDash(p.ScenarioDigest)+"`")
	t.Add("started", orDash(p.StartTime))
	t.Add("ended", orDash(p.EndTime))
	if p.Command != "" {
		t.Add("command", "`"+p.Command+"`")
	}
	return t
}

// outsideTable compares each run's outside RSS peak with its own samples'
// peak; nil when no run was watched from outside (results from before the guard).
func outsideTable(r *schema.Result) *table.Table {
	t := table.New("l|r|r|r|l", "model", "outside RSS peak", "own samples' RSS peak", "difference", "guard")
	rows := 0
	for _, m := range r.Models {
		run := r.Runs[m]
		if run == nil || run.OutsideRSSPeak == 0 {
			continue
		}
		diff := "-"
		if run.OutsideRSSPeak > 0 {
			d := float64(run.OutsideRSSPeak - run.RSSPeak)
			diff = fmt.Sprintf("%s (%.1f%%)", units.FormatSignedBytes(d), 100*d/float64(run.OutsideRSSPeak))
		}
		guard := "not stopped"
		if run.StoppedByGuard != "" {
			guard = "stopped"
		}
		t.Add(m, units.FormatBytes(float64(run.OutsideRSSPeak)), units.FormatBytes(float64(run.RSSPeak)), diff, guard)
		rows++
	}
	if rows == 0 {
		return nil
	}
	return t
}

// machineRows adds the host's facts to the provenance table.
func machineRows(t *table.Table, m *schema.Machine) {
	t.Add("CPU", fmt.Sprintf("%s, %d logical CPUs", orDash(m.CPUModel), m.LogicalCPUs))
	t.Add("memory", fmt.Sprintf("%s total, %s available at the start", units.FormatBytes(float64(m.MemTotal)),
		units.FormatBytes(float64(m.MemAvailable))))
	t.Add("kernel", fmt.Sprintf("%s (%s)", orDash(m.Kernel), orDash(m.Platform)))
	mem, cpus := "none", "none"
	if m.CgroupMemoryMax > 0 {
		mem = units.FormatBytes(float64(m.CgroupMemoryMax))
	}
	if m.CgroupCPUs > 0 {
		cpus = strconv.FormatFloat(m.CgroupCPUs, 'f', -1, 64) + " CPUs"
	}
	t.Add("cgroup limits", fmt.Sprintf("memory %s, CPU %s", mem, cpus))
}

// Verdicts.
