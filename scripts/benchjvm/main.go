// Command benchjvm measures the JVM child's cost (issue 28): the same
// workload run by the Java child instrumented (samples, ledger: what
// rocksleak run measures with) and bare (ROCKSLEAK_JVM_CHILD_ARGS=--bare: the
// same store operations, no sampling, no ledger), alternately, in one
// invocation, and prints lifecycles per second of each, the ratio
// harness/bare of wall time per lifecycle (goal <= 1.10) and one sample's
// cost, derived as (harness − bare time per lifecycle) × lifecycles /
// samples. Times are the child's own (its summary's elapsed_ns: from its
// first op to its end, JVM start-up excluded).
//
//	go run ./scripts/benchjvm [-bin bin/rocksleak] [-model kafka-4.3.1] [-lifecycles 600] [-rounds 2] [-app FILE]
//
// With -app the runs are the application's (rocksleak run --app FILE), and bare is a bare TopologyTestDriver
// loop of the same operations (the Java child's --bare: no sampling, no ledger, Kafka calling the user's config
// setter directly).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
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
	rounds := flag.Int("rounds", 2, "rounds of bare then instrumented")
	goal := flag.Float64("goal", 1.10, "the harness/bare ratio the verdict judges")
	app := flag.String("app", "", "an app file (rocksleak run --app): the application's lifecycles instead of the scenario's; bare is then the same TopologyTestDriver loop with no sampling, no ledger and the user's config setter called by Kafka directly")
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
	run := func(name string, bare bool) summary {
		out := filepath.Join(tmp, name)
		args := []string{"run", "--models", *model, "--lifecycles", strconv.Itoa(*lifecycles), "--out", out}
		if *app != "" {
			args = append(args, "--app", *app)
		} else {
			args = append(args, "--set", "records_per_step=2")
		}
		cmd := exec.Command(*bin, args...)
		cmd.Env = os.Environ()
		if bare {
			cmd.Env = append(cmd.Env, "ROCKSLEAK_JVM_CHILD_ARGS=--bare")
		}
		cmd.Stderr = os.Stderr
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
		return s
	}
	perLC := func(s summary) float64 { return float64(s.ElapsedNs) / float64(s.Lifecycles) }
	var ratios, costs []float64
	fmt.Printf("%-6s %-13s %10s %10s %14s %8s\n", "round", "child", "lifecycles", "samples", "lifecycles/s", "ratio")
	for i := 1; i <= *rounds; i++ {
		b := run(fmt.Sprintf("bare-%d", i), true)
		h := run(fmt.Sprintf("harness-%d", i), false)
		ratio := perLC(h) / perLC(b)
		ratios = append(ratios, ratio)
		if h.Samples > 0 {
			costs = append(costs, (perLC(h)-perLC(b))*float64(h.Lifecycles)/float64(h.Samples))
		}
		fmt.Printf("%-6d %-13s %10d %10d %14.1f\n", i, "bare", b.Lifecycles, b.Samples, 1e9/perLC(b))
		fmt.Printf("%-6d %-13s %10d %10d %14.1f %8.3f\n", i, "instrumented", h.Lifecycles, h.Samples, 1e9/perLC(h), ratio)
	}
	m := median(ratios)
	verdict := "meets"
	if m > *goal {
		verdict = "misses"
	}
	fmt.Printf("\n%s: harness/bare wall time per lifecycle, median of %d rounds: %.3f (%s the goal <= %.2f)\n", *model, len(ratios), m, verdict, *goal)
	if len(costs) > 0 {
		fmt.Printf("one sample's cost (harness − bare time, per sample), median: %.2f ms\n", median(costs)/1e6)
	}
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchjvm:", err)
	os.Exit(1)
}
