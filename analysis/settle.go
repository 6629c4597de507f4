package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// SettleCommand is what would settle an inconclusive decision d of model,
// as a user can act on it: d.Settle's sentence, then the rocksleak command
// that does it, for the scenario and seed of r. More lifecycles: the same
// run over the model's lifecycles plus d.MoreLifecycles, rounded up to a
// hundred. A slope on its floor, or RSS above its floor with a flat native
// heap: the fixed model judged against all-fixes (a controlled verdict,
// which finds leaks below any floor); another model, twice as long. A
// one-time level shift: the same run at the next seed. Each command carries
// the run's scenario overrides (the --set flags of the command r records), so
// it runs the same workload. It returns "" for a settled decision.
func SettleCommand(r *schema.Result, model string, d stats.Decision) string {
	if d.Verdict != stats.VerdictInconclusive || d.Settle == "" {
		return d.Settle
	}
	var lifecycles int64
	if run := r.Runs[model]; run != nil {
		lifecycles = run.Lifecycles
	}
	sets := carriedSets(r.Provenance.Command)
	what := "--scenario " + r.Scenario.Name
	if app := carriedApp(r.Provenance.Command); app != "" {
		what = "--app " + app // an application's run: its app file, not a catalogue scenario
	}
	base := fmt.Sprintf("rocksleak run %s --models %s --seed %d%s", what, model, r.Scenario.Seed, sets)
	round := func(v float64) int64 { return int64(math.Ceil(v/100) * 100) }
	var cmd string
	switch {
	case d.Step():
		cmd = fmt.Sprintf("rocksleak run %s --models %s --seed %d%s", what, model, r.Scenario.Seed+1, sets)
		if lifecycles > 0 {
			cmd += fmt.Sprintf(" --lifecycles %d", lifecycles)
		}
	case d.NeedsControl():
		if model == "fixed" {
			cmd = fmt.Sprintf("rocksleak run %s --models fixed,all-fixes --seed %d%s --lifecycles %d", what, r.Scenario.Seed, sets, max(round(float64(lifecycles)), 3000))
		} else if lifecycles > 0 {
			cmd = fmt.Sprintf("%s --lifecycles %d", base, round(2*float64(lifecycles)))
		}
	case d.MoreLifecycles > 0 && !math.IsInf(d.MoreLifecycles, 1) && lifecycles > 0:
		cmd = fmt.Sprintf("%s --lifecycles %d", base, round(float64(lifecycles)+d.MoreLifecycles))
	case lifecycles > 0:
		cmd = fmt.Sprintf("%s --lifecycles %d", base, round(2*float64(lifecycles)))
	}
	if cmd == "" {
		return d.Settle
	}
	return d.Settle + ": " + cmd
}

// carriedApp returns the --app file of a recorded rocksleak command line ("" when there is none).
func carriedApp(command string) string {
	f := strings.Fields(command)
	for i, a := range f {
		switch {
		case (a == "--app" || a == "-app") && i+1 < len(f):
			return f[i+1]
		case strings.HasPrefix(a, "--app="):
			return strings.TrimPrefix(a, "--app=")
		}
	}
	return ""
}

// carriedSets returns the --set flags of a recorded rocksleak command line,
// each as " --set key=value", in their order ("" when there are none): the
// scenario overrides a settle command must repeat to run the same workload.
func carriedSets(command string) string {
	var b strings.Builder
	f := strings.Fields(command)
	for i := 0; i < len(f); i++ {
		var kv string
		switch {
		case (f[i] == "--set" || f[i] == "-set") && i+1 < len(f):
			i++
			kv = f[i]
		case strings.HasPrefix(f[i], "--set="):
			kv = strings.TrimPrefix(f[i], "--set=")
		case strings.HasPrefix(f[i], "-set="):
			kv = strings.TrimPrefix(f[i], "-set=")
		default:
			continue
		}
		b.WriteString(" --set " + kv)
	}
	return b.String()
}
