package goengine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
)

// profileBenchLifecycles is how many lifecycles each child of BenchmarkProfileCost runs; with -short (make
// test's run of every benchmark once, which checks that it still runs, not what it measures) profileSmokeLifecycles.
const (
	profileBenchLifecycles = 300
	profileSmokeLifecycles = 30
)

var profileBenchExe struct {
	once sync.Once
	path string
	err  error
}

// BenchmarkProfileCost measures what rocksleak run --profile costs: each iteration runs kv-clean's leaky model for
// profileBenchLifecycles lifecycles in a child under jemalloc, once unprofiled and once profiled (heap profiling
// on, dumps at the warm-up's end and at the end, the parent's symbolization included in the wall time), in
// alternating order, and reports both lifecycle rates from the children's own elapsed times and their ratio
// (profiled/unprofiled ns per lifecycle; the goal is ≤ 1.3), and the ratio of the children's CPU time (user+sys,
// which load from other processes moves far less than wall time on a shared machine). The children are a "go build" of cmd/rocksleak, as
// the CLI runs them.
func BenchmarkProfileCost(b *testing.B) {
	profileBenchExe.once.Do(func() {
		dir, err := os.MkdirTemp("", "rocksleak-bench-")
		if err != nil {
			profileBenchExe.err = err
			return
		}
		profileBenchExe.path = filepath.Join(dir, "rocksleak")
		cmd := exec.Command("go", "build", "-o", profileBenchExe.path, "../../cmd/rocksleak")
		cmd.Stderr = os.Stderr
		profileBenchExe.err = cmd.Run()
	})
	if profileBenchExe.err != nil {
		b.Fatalf("building the CLI: %v", profileBenchExe.err)
	}
	sc, _, err := scenarios.Load("kv-clean")
	if err != nil {
		b.Fatal(err)
	}
	sc.Lifecycles, sc.Duration = profileBenchLifecycles, 0
	if testing.Short() {
		sc.Lifecycles = profileSmokeLifecycles
	}
	childCPU := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var plainCPU, profCPU time.Duration
	run := func(profiled bool) (perLifecycle, parentWall time.Duration) {
		cfg := harness.Config{Scenario: sc, Models: []string{"leaky@jemalloc"}, Seed: sc.Seed, Engines: []engine.Engine{Engine{Exe: profileBenchExe.path}},
			StateRoot: b.TempDir()}
		if profiled {
			cfg.Profile = &harness.Profile{Dir: b.TempDir()}
		}
		start, cpu0 := time.Now(), childCPU()
		out, err := harness.Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		// RUSAGE_CHILDREN counts the children waited for: this run's one child.
		if profiled {
			profCPU += childCPU() - cpu0
		} else {
			plainCPU += childCPU() - cpu0
		}
		r := out.Runs[0]
		if r.Summary == nil || r.Summary.Lifecycles == 0 {
			b.Fatalf("no lifecycles: %+v", r)
		}
		if profiled && (r.Profile == nil || r.Profile.Error != "") {
			b.Fatalf("profile: %+v", r.Profile)
		}
		n := time.Duration(r.Summary.Lifecycles)
		return time.Duration(r.Summary.ElapsedNs) / n, wall / n
	}
	var plain, prof, plainWall, profWall time.Duration
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			a, aw := run(false)
			c, cw := run(true)
			plain, plainWall, prof, profWall = plain+a, plainWall+aw, prof+c, profWall+cw
		} else {
			c, cw := run(true)
			a, aw := run(false)
			plain, plainWall, prof, profWall = plain+a, plainWall+aw, prof+c, profWall+cw
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(plain.Nanoseconds())/n, "unprofiled-ns/lifecycle")
	b.ReportMetric(float64(prof.Nanoseconds())/n, "profiled-ns/lifecycle")
	b.ReportMetric(1e9*n/float64(plain.Nanoseconds()), "unprofiled-lifecycles/s")
	b.ReportMetric(1e9*n/float64(prof.Nanoseconds()), "profiled-lifecycles/s")
	b.ReportMetric(float64(prof)/float64(plain), "profiled/unprofiled")
	b.ReportMetric(float64(profWall)/float64(plainWall), "profiled/unprofiled-with-parent")
	b.ReportMetric(float64(profCPU)/float64(plainCPU), "profiled/unprofiled-cpu")
}
