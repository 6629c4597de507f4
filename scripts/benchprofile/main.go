// Command benchprofile measures what rocksleak run --profile costs the JVM engine (issue 41's speed goal: with
// --profile, at least 0.75 of the lifecycles per second without): the same kafka-<version> run without and with
// --profile, alternately, in one invocation. Per round it prints the child's lifecycles per second (its summary's
// elapsed_ns: first op to end, JVM start-up excluded), the command's wall time (with the profile's conversion after
// the child), and the ratios profiled/plain; at the end their medians against the goal.
//
//	go run ./scripts/benchprofile [-bin bin/rocksleak] [-model kafka-4.3.0] [-lifecycles 400] [-rounds 3]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/rocksleak/rocksleak/stats"
)

// arm is one run's figures.
type arm struct {
	lifecycles int64
	childNs    int64
	wall       time.Duration
}

func (a arm) perSecond() float64 { return float64(a.lifecycles) / (float64(a.childNs) / 1e9) }

func main() {
	bin := flag.String("bin", "bin/rocksleak", "the rocksleak binary")
	model := flag.String("model", "kafka-4.3.0", "the kafka-<version> model")
	lifecycles := flag.Int("lifecycles", 400, "lifecycles per run")
	rounds := flag.Int("rounds", 3, "rounds of plain then profiled")
	goal := flag.Float64("goal", 0.75, "the profiled/plain ratio of lifecycles per second the verdict judges")
	flag.Parse()
	if *lifecycles < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "benchprofile: -lifecycles and -rounds must be positive")
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "benchprofile-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	run := func(name string, profile bool) arm {
		out := filepath.Join(tmp, name)
		args := []string{"run", "--models", *model, "--lifecycles", strconv.Itoa(*lifecycles),
			"--set", "records_per_step=2", "--out", out}
		if profile {
			args = append(args, "--profile")
		}
		cmd := exec.Command(*bin, args...)
		cmd.Stderr = os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
		wall := time.Since(start)
		b, err := os.ReadFile(filepath.Join(out, "result.json"))
		if err != nil {
			fail(err)
		}
		var r struct {
			Runs map[string]struct {
				Lifecycles int64 `json:"lifecycles"`
				ElapsedNs  int64 `json:"elapsed_ns"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			fail(err)
		}
		s := r.Runs[*model]
		if s.Lifecycles == 0 || s.ElapsedNs == 0 {
			fail(fmt.Errorf("%s: no lifecycles", name))
		}
		return arm{lifecycles: s.Lifecycles, childNs: s.ElapsedNs, wall: wall}
	}
	var child, wall []float64
	fmt.Printf("%-6s %-9s %10s %14s %10s\n", "round", "run", "lifecycles", "lifecycles/s", "wall")
	for i := 1; i <= *rounds; i++ {
		p := run(fmt.Sprintf("plain-%d", i), false)
		q := run(fmt.Sprintf("profiled-%d", i), true)
		for _, x := range []struct {
			name string
			a    arm
		}{{"plain", p}, {"profiled", q}} {
			fmt.Printf("%-6d %-9s %10d %14.2f %10s\n", i, x.name, x.a.lifecycles, x.a.perSecond(), x.a.wall.Round(time.Millisecond))
		}
		child = append(child, q.perSecond()/p.perSecond())
		wall = append(wall, (float64(p.wall)/float64(p.lifecycles))/(float64(q.wall)/float64(q.lifecycles)))
		fmt.Printf("%-6d ratio profiled/plain: child lifecycles/s %.3f, whole command %.3f\n", i, child[i-1], wall[i-1])
	}
	mc, mw := stats.Median(child), stats.Median(wall)
	verdict := "meets"
	if mc < *goal {
		verdict = "misses"
	}
	fmt.Printf("median over %d rounds: child lifecycles/s ratio %.3f (rounds %.3f to %.3f), whole command %.3f: %s the goal >= %.2f\n",
		*rounds, mc, slices.Min(child), slices.Max(child), mw, verdict, *goal)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchprofile:", err)
	os.Exit(1)
}
