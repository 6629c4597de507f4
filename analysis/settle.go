package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/stats"
)

// SettleCommand is what would settle an inconclusive decision d of model,
// as a user can act on it: d.Settle's sentence, then the rocksleak command
// that does it, for the scenario and seed of r. More lifecycles: the same
// run over the model's lifecycles plus d.MoreLifecycles, rounded up to a
// hundred. A slope on its floor, or RSS above its floor with a flat native
// heap: the model judged against its control with every fix (ControlOf: a
// controlled verdict, which finds leaks below any floor), when it has one;
// otherwise the same run twice as long. A one-time level shift: the same run
// at the next seed. Each command carries the run's scenario overrides (the
// --set flags of the command r records), so it runs the same workload. It
// returns "" for a settled decision.
func SettleCommand(r *schema.Result, model string, d stats.Decision) string {
	if d.Verdict != stats.VerdictInconclusive || d.Settle == "" {
		return d.Settle
	}
	var lifecycles int64
	if run := r.Runs[model]; run != nil {
		lifecycles = run.Lifecycles
	}
	run := RunCommand{Scenario: r.Scenario.Name, Models: []string{model}, Seed: r.Scenario.Seed,
		Sets: carriedSets(r.Provenance.Command), App: carriedApp(r.Provenance.Command)}
	round := func(v float64) int64 { return int64(math.Ceil(v/100) * 100) }
	control, hasControl := ControlOf(model)
	switch {
	case d.Step():
		run.Seed++
		run.Lifecycles = lifecycles
	case d.NeedsControl() && hasControl:
		run.Models = append(run.Models, control)
		run.Lifecycles = max(round(float64(lifecycles)), 3000)
	case d.NeedsControl():
		run.Lifecycles = round(2 * float64(lifecycles))
	case d.MoreLifecycles > 0 && !math.IsInf(d.MoreLifecycles, 1):
		run.Lifecycles = round(float64(lifecycles) + d.MoreLifecycles)
	default:
		run.Lifecycles = round(2 * float64(lifecycles))
	}
	if lifecycles <= 0 && !d.Step() && !(d.NeedsControl() && hasControl) {
		return d.Settle // no run length to start from
	}
	return d.Settle + ": " + run.String()
}

// ControlOf is the control a model's slope is judged against when it sits
// on its floor: the same run with every fix, for a run lacking exactly one,
// so that the controlled verdict's difference is that one leak. For the Go
// engine that is the model with every fix (spec.Fixes), for a model lacking
// exactly one of them (the released fix, which leaks one object of
// RocksJava's own); for a Kafka version on the JVM engine, the same version
// with RocksJava's read-options fix (spec.ReadOptionsFixSuffix). The
// control runs under the same allocator. A run with no such control (a
// model lacking several fixes, one with every fix, a synthetic leak) has
// none: ok is false.
func ControlOf(model string) (control string, ok bool) {
	rn, err := spec.ParseRunName(model, spec.ModelNames())
	if err != nil || rn.Synthetic {
		return "", false
	}
	c := rn
	switch {
	case rn.JVM() && rn.ReadOptionsFix:
		return "", false
	case rn.JVM():
		c.ReadOptionsFix = true
		return c.String(), true
	}
	m, err := spec.ParseModel(rn.Model)
	if err != nil {
		return "", false
	}
	all := spec.NewFixSet(spec.Fixes()...)
	if len(m.Fixes.List())+1 != len(all.List()) {
		return "", false
	}
	for _, full := range spec.Models() {
		if full.Fixes == all {
			c.Model = full.Name
			return c.String(), true
		}
	}
	return "", false
}

// RunCommand is a rocksleak run a result asks for (to settle a verdict):
// its String is the command line a user can paste.
type RunCommand struct {
	Scenario   string
	App        string // an application's app file (rocksleak run --app), in place of the scenario
	Models     []string
	Seed       int64
	Sets       []string // scenario overrides, key=value, in order
	Lifecycles int64    // 0: the scenario's stop condition
}

// String renders the command: "rocksleak run --scenario S --models A,B
// --seed N [--set k=v ...] [--lifecycles L]".
func (c RunCommand) String() string {
	var b strings.Builder
	what := "--scenario " + c.Scenario
	if c.App != "" {
		what = "--app " + c.App
	}
	fmt.Fprintf(&b, "rocksleak run %s --models %s --seed %d", what, strings.Join(c.Models, ","), c.Seed)
	for _, kv := range c.Sets {
		b.WriteString(" --set " + kv)
	}
	if c.Lifecycles > 0 {
		fmt.Fprintf(&b, " --lifecycles %d", c.Lifecycles)
	}
	return b.String()
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
// each as key=value, in their order (nil when there are none): the
// scenario overrides a settle command must repeat to run the same workload.
func carriedSets(command string) []string {
	var sets []string
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
		sets = append(sets, kv)
	}
	return sets
}
