// Command gateaa measures the CI gate's false-alarm rate and its power on
// real runs (`make gate-aa`): N pairs of `fixed` runs of the default scenario
// at different seeds, each pair gated with the default policy (A/A: nothing
// changed, so any FAIL is a false alarm), and the `leaky` model at the
// candidate's seed gated against the same baseline (the regression every
// pair must catch). With -load the runs share the machine with a CPU load on
// one core (stress-ng --cpu 1), as a CI runner shares its host. It prints
// one line per pair and the table: per check, how many A/A pairs failed and
// warned, and how many leaky pairs failed.
//
// Every run is a real `rocksleak run` of the binary -bin, written under
// -out; the gate is package gate's Evaluate on their result.json, as
// `rocksleak gate` does. Arguments after -- go to every run (for example
// --lifecycles 300 for a short look; the table's goal is for the default).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rocksleak/rocksleak/gate"
	"github.com/rocksleak/rocksleak/internal/table"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

func main() {
	pairs := flag.Int("pairs", 20, "pairs of fixed runs at different seeds")
	seed0 := flag.Int64("seed", 1000, "the first pair's baseline seed; pair i uses seeds seed+2i (baseline) and seed+2i+1 (candidates)")
	load := flag.Bool("load", false, "run beside a CPU load on one core (stress-ng --cpu 1)")
	bin := flag.String("bin", "./bin/rocksleak", "the rocksleak binary")
	out := flag.String("out", "", "where the runs go (default runs/gate-aa/<UTC time>)")
	flag.Parse()
	if *pairs < 1 {
		fmt.Fprintln(os.Stderr, "gateaa: -pairs must be at least 1")
		os.Exit(2)
	}
	if *out == "" {
		*out = filepath.Join("runs", "gate-aa", time.Now().UTC().Format("20060102T150405Z"))
	}
	if err := run(*pairs, *seed0, *load, *bin, *out, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gateaa:", err)
		os.Exit(1)
	}
}

// tally counts outcomes per check name ("gate" for the overall outcome).
type tally struct {
	aaFail, aaWarn, leakyFail map[string]int
	order                     []string
}

func newTally() *tally {
	return &tally{aaFail: map[string]int{}, aaWarn: map[string]int{}, leakyFail: map[string]int{}}
}

func (t *tally) add(rep *gate.Report, aa bool) {
	count := func(name string, o gate.Outcome) {
		if !slices.Contains(t.order, name) {
			t.order = append(t.order, name)
		}
		switch {
		case aa && o == gate.Fail:
			t.aaFail[name]++
		case aa && o == gate.Warn:
			t.aaWarn[name]++
		case !aa && o == gate.Fail:
			t.leakyFail[name]++
		}
	}
	for _, c := range rep.Checks {
		count(c.Name, c.Outcome)
	}
	if rep.Controlled != nil {
		o := gate.Pass
		if rep.Controlled.Verdict == stats.VerdictLeak.String() {
			o = gate.Fail
		}
		count("controlled verdict", o)
	}
	count("gate", rep.Outcome)
}

func run(pairs int, seed0 int64, load bool, bin, out string, runArgs []string, w io.Writer) error {
	if load {
		stop, err := startLoad()
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	t := newTally()
	fmt.Fprintf(w, "gate A/A: %d pairs of fixed runs (seeds %d..%d), load on one core: %v, runs in %s\n",
		pairs, seed0, seed0+int64(2*pairs-1), load, out)
	for i := range pairs {
		a, b := seed0+int64(2*i), seed0+int64(2*i+1)
		base, err := runModel(bin, out, "fixed", a, runArgs)
		if err != nil {
			return err
		}
		cand, err := runModel(bin, out, "fixed", b, runArgs)
		if err != nil {
			return err
		}
		leaky, err := runModel(bin, out, "leaky", b, runArgs)
		if err != nil {
			return err
		}
		aa, err := gate.Evaluate(gate.DefaultPolicy(), base, cand, gate.Options{})
		if err != nil {
			return fmt.Errorf("pair %d (A/A): %w", i+1, err)
		}
		lk, err := gate.Evaluate(gate.DefaultPolicy(), base, leaky, gate.Options{BaselineModel: "fixed", CandidateModel: "leaky"})
		if err != nil {
			return fmt.Errorf("pair %d (leaky): %w", i+1, err)
		}
		t.add(aa, true)
		t.add(lk, false)
		fmt.Fprintf(w, "pair %d: fixed@%d vs fixed@%d: %s%s; leaky@%d: %s\n", i+1, a, b, aa.Outcome, notPassed(aa), b, lk.Outcome)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, render(t, pairs))
	fmt.Fprintln(w, "goal (issue 44): A/A 0 of 20 fail and at most 1 of 20 warn overall; leaky fails 20 of 20")
	return nil
}

// notPassed names the checks of rep that did not pass.
func notPassed(rep *gate.Report) string {
	var s []string
	for _, c := range rep.Checks {
		if c.Outcome != gate.Pass {
			s = append(s, c.Name+" "+strings.ToLower(string(c.Outcome)))
		}
	}
	if len(s) == 0 {
		return ""
	}
	return " (" + strings.Join(s, ", ") + ")"
}

func render(t *tally, pairs int) string {
	tb := table.New("l|r|r|r|r", "check", "A/A pairs", "A/A fail", "A/A warn", "leaky fail")
	for _, name := range t.order {
		tb.Add(name, strconv.Itoa(pairs), strconv.Itoa(t.aaFail[name]), strconv.Itoa(t.aaWarn[name]),
			fmt.Sprintf("%d of %d", t.leakyFail[name], pairs))
	}
	var b strings.Builder
	tb.Text(&b)
	return b.String()
}

// runModel runs model alone at seed with the default scenario and reads its
// result back.
func runModel(bin, out, model string, seed int64, extra []string) (*schema.Result, error) {
	dir := filepath.Join(out, fmt.Sprintf("%s-seed%d", model, seed))
	if _, err := os.Stat(filepath.Join(dir, "result.json")); err != nil {
		args := append([]string{"run", "--models", model, "--seed", strconv.FormatInt(seed, 10), "--out", dir}, extra...)
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s %s: %w", bin, strings.Join(args, " "), err)
		}
	}
	return schema.Read(filepath.Join(dir, "result.json"))
}

// startLoad starts stress-ng on one core and returns what stops it (the
// process it started, by its id, and its children by process group).
func startLoad() (func(), error) {
	path, err := exec.LookPath("stress-ng")
	if err != nil {
		return nil, fmt.Errorf("-load needs stress-ng (apt-get install stress-ng, or ./scripts/install-deps.sh --load)")
	}
	cmd := exec.Command(path, "--cpu", "1", "--quiet")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	}, nil
}
