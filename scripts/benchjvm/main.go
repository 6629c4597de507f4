// Command benchjvm measures the JVM child's cost (issues 28, 42): the same
// workload run by the Java child instrumented (samples, ledger: what
// rocksleak run measures with) and bare (ROCKSLEAK_JVM_CHILD_ARGS=--bare: the
// same store operations, no sampling, no ledger), alternately, in one
// invocation. Per round it prints lifecycles per second of each, the ratio
// harness/bare of wall time per lifecycle and one sample's cost by the
// child's own clock (its stderr line "N samples taking S s (U µs each)");
// then the rounds' ratios, their spread (min-max) and median, the throughput
// ratio instrumented/bare lifecycles per second against the goal (issue 42:
// at least 0.90), and one sample's cost both by the child's clock and as
// (harness − bare time per lifecycle) × lifecycles / samples. Times are the
// child's own (its summary's elapsed_ns: from its first op to its end, JVM
// start-up excluded).
//
//	go run ./scripts/benchjvm [-bin bin/rocksleak] [-model kafka-4.3.1] [-lifecycles 600] [-rounds 5] [-app FILE]
//
// With -app the runs are the application's (rocksleak run --app FILE), and bare is a bare TopologyTestDriver
// loop of the same operations (the Java child's --bare: no sampling, no ledger, Kafka calling the user's config
// setter directly).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

type summary struct {
	Lifecycles int64 `json:"lifecycles"`
	ElapsedNs  int64 `json:"elapsed_ns"`
	Samples    int   `json:"samples"`
}

func main() {
	bin := flag.String("bin", "bin/rocksleak", "the rocksleak binary")
	model := flag.String("model", "kafka-4.3.1", "the kafka-<version> model")
	lifecycles := flag.Int("lifecycles", 600, "lifecycles per run")
	rounds := flag.Int("rounds", 5, "rounds of bare then instrumented")
	goal := flag.Float64("goal", 0.90, "the throughput ratio instrumented/bare the verdict judges (at least)")
	app := flag.String("app", "", "an app file (rocksleak run --app): the application's lifecycles instead of the scenario's; bare is then the same TopologyTestDriver loop with no sampling, no ledger and the user's config setter called by Kafka directly")
	profile := flag.Bool("profile", false, "run the instrumented child with --profile (async-profiler's nativemem mode); issue 41's goal for it is -goal 0.75")
	flag.Parse()
	if *lifecycles < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "benchjvm: -lifecycles and -rounds must be positive")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "benchjvm-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	run := func(name string, bare bool) (summary, float64) {
		out := filepath.Join(tmp, name)
		args := []string{"run", "--models", *model, "--lifecycles", strconv.Itoa(*lifecycles), "--out", out}
		if *app != "" {
			args = append(args, "--app", *app)
		} else {
			args = append(args, "--set", "records_per_step=2")
		}
		if *profile && !bare {
			args = append(args, "--profile")
		}
		cmd := exec.Command(*bin, args...)
		cmd.Env = os.Environ()
		if bare {
			cmd.Env = append(cmd.Env, "ROCKSLEAK_JVM_CHILD_ARGS=--bare")
		}
		var stderr bytes.Buffer
		cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
		b, err := os.ReadFile(filepath.Join(out, "result.json"))
		if err != nil {
			fail(err)
		}
		var r struct {
			Runs map[string]summary `json:"runs"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			fail(err)
		}
		s := r.Runs[*model]
		if s.Lifecycles == 0 {
			fail(fmt.Errorf("%s: no lifecycles", name))
		}
		return s, sampleMicros(stderr.String())
	}
	perLC := func(s summary) float64 { return float64(s.ElapsedNs) / float64(s.Lifecycles) }
	var ratios, costs, childCosts []float64
	fmt.Printf("%-6s %-13s %10s %10s %14s %8s %12s\n", "round", "child", "lifecycles", "samples", "lifecycles/s", "ratio", "sample µs")
	for i := 1; i <= *rounds; i++ {
		b, _ := run(fmt.Sprintf("bare-%d", i), true)
		h, us := run(fmt.Sprintf("harness-%d", i), false)
		ratio := perLC(h) / perLC(b)
		ratios = append(ratios, ratio)
		if h.Samples > 0 {
			costs = append(costs, (perLC(h)-perLC(b))*float64(h.Lifecycles)/float64(h.Samples))
		}
		if us > 0 {
			childCosts = append(childCosts, us)
		}
		fmt.Printf("%-6d %-13s %10d %10d %14.1f\n", i, "bare", b.Lifecycles, b.Samples, 1e9/perLC(b))
		fmt.Printf("%-6d %-13s %10d %10d %14.1f %8.3f %12.0f\n", i, "instrumented", h.Lifecycles, h.Samples, 1e9/perLC(h), ratio, us)
	}
	fmt.Print(report(*model, ratios, costs, childCosts, *goal))
}

// sampleMicros returns one sample's cost in µs by the instrumented child's
// own clock, from its last stderr line "... N samples taking S s (U µs each)",
// or 0 when there is none.
func sampleMicros(stderr string) float64 {
	var us float64
	for _, line := range strings.Split(stderr, "\n") {
		i := strings.Index(line, " samples taking ")
		j := strings.LastIndex(line, "(")
		k := strings.LastIndex(line, " µs each)")
		if i < 0 || j < i || k < j {
			continue
		}
		if v, err := strconv.ParseFloat(line[j+1:k], 64); err == nil {
			us = v
		}
	}
	return us
}

// report renders the rounds: ratios (harness/bare time per lifecycle) with
// their spread and median, the throughput ratio against goal, and one
// sample's cost by the child's clock (childUs, µs) and by the difference of
// the runs (diffNs, ns).
func report(model string, ratios, diffNs, childUs []float64, goal float64) string {
	var b strings.Builder
	r := spread(ratios)
	per := make([]string, len(ratios))
	for i, x := range ratios {
		per[i] = fmt.Sprintf("%.3f", x)
	}
	fmt.Fprintf(&b, "\n%s: harness/bare wall time per lifecycle, %d rounds: %s\n", model, r.n, strings.Join(per, " "))
	fmt.Fprintf(&b, "  median %.3f, spread %.3f to %.3f\n", r.median, r.min, r.max)
	verdict := "meets"
	if 1/r.median < goal {
		verdict = "misses"
	}
	fmt.Fprintf(&b, "  lifecycles/s instrumented/bare: median %.3f, spread %.3f to %.3f (%s the goal >= %.2f)\n",
		1/r.median, 1/r.max, 1/r.min, verdict, goal)
	if c := spread(childUs); c.n > 0 {
		fmt.Fprintf(&b, "one sample's cost by the child's clock: median %.2f ms, spread %.2f to %.2f ms\n", c.median/1e3, c.min/1e3, c.max/1e3)
	}
	if d := spread(diffNs); d.n > 0 {
		fmt.Fprintf(&b, "one sample's cost (harness − bare time, per sample): median %.2f ms, spread %.2f to %.2f ms\n", d.median/1e6, d.min/1e6, d.max/1e6)
	}
	return b.String()
}
