//go:build cgo

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

func readRehearsal(t *testing.T, dir string) *schema.Rehearsal {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "rehearsal.json"))
	require.NoError(t, err)
	var r schema.Rehearsal
	require.NoError(t, json.Unmarshal(b, &r))
	return &r
}

func phaseNames(r *schema.Rehearsal) []string {
	var out []string
	for _, p := range r.Phases {
		out = append(out, p.Name)
	}
	return out
}

// TestRehearseLeakyToFixedCompletes is the positive control of the
// rehearsal: the default fleet (four instances in two failure domains) with
// the default two-hour windows, leaky → fixed (with one-hour windows a freshly
// restarted canary's RSS, still rising, failed the RSS gate once on CI: the
// warm-up cut needs the longer window). The canary and every expansion pass their
// gates, the fleet ends on fixed, nothing is lost, lag stays under the
// gate's 2 minutes, and the fleet's state is gone.
func TestRehearseLeakyToFixedCompletes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real fleet of RocksDB child processes (about 4 minutes of CPU)")
	}
	// Its gates read RSS and the native heap; a fleet of four keeps about one core busy, and it runs beside one
	// other test at most (sharesTheCores).
	sharesTheCores(t)
	out := filepath.Join(t.TempDir(), "out")
	state := stateRoot(t)
	// The default two-hour windows. A gate's RSS check fails only when the bottom of the candidate's 95% interval
	// lies above the limit. The last wave compares an instance just restarted on fixed with instances on fixed
	// restarted phases earlier. Against the baselines' same phase that bottom reached 1.23 (one-hour windows) and
	// 1.04 (two-hour) of the limit in fresh clones' make test on 2026-12-04. Since ab5af80 a restarted candidate's
	// RSS is compared with the baselines' own first phase after a restart. In eight runs of `rocksleak rehearse
	// --from leaky --to fixed [--window 1h]` the bottom then reached at most 0.52 of the limit at 1 h and 0.22 at 2 h
	// (docs/findings.md, 2026-12-04).
	stdout, stderr, code := runCLI(t, "rehearse", "--from", "leaky", "--to", "fixed", "--instances", "4", "--domains", "2",
		"--state-dir", state, "--out", out)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	r := readRehearsal(t, out)
	assert.Equal(t, schema.RehearsalComplete, r.Status)
	assert.Equal(t, []string{"baseline", "canary", "expand-domain-0", "expand-domain-1-wave-1", "expand-domain-1-wave-2", "final"},
		phaseNames(r), "the canary, then domain 0's other instance, then domain 1 one instance at a time")
	for _, p := range r.Phases {
		if p.Name != "baseline" && p.Name != "final" {
			require.NotNil(t, p.Gate, p.Name)
			assert.NotEqual(t, "fail", p.Gate.Outcome, "%s: %s", p.Name, p.Gate.Reason)
			assert.LessOrEqual(t, len(p.Restarted), 1, "at most --max-restarts at once")
		}
		for _, ip := range p.Instances {
			assert.Zero(t, ip.Summary.RecordsLost, "%s instance %d", p.Name, ip.Instance)
			assert.Zero(t, ip.Summary.TaskErrors, "%s instance %d", p.Name, ip.Instance)
			assert.LessOrEqual(t, ip.MaxLagMs, int64(120000), "%s instance %d", p.Name, ip.Instance)
			assert.Greater(t, ip.Summary.Lifecycles, int64(200), "%s instance %d sees hundreds of lifecycles", p.Name, ip.Instance)
			assert.NotEmpty(t, ip.Samples)
			assert.NotEmpty(t, ip.Lag)
		}
	}
	final := r.Phases[len(r.Phases)-1]
	for _, ip := range final.Instances {
		assert.Equal(t, "fixed", ip.Model)
	}
	assert.Len(t, r.Versions, 8, "four starts on leaky, four upgrades")
	for _, f := range []string{"report.md", "rehearsal.png"} {
		st, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	assert.Nil(t, r.Rollback)
	assert.Empty(t, r.Errors)
	left, err := os.ReadDir(state)
	require.NoError(t, err)
	assert.Empty(t, left, "the fleet's state and changelogs are removed")
}

// TestRehearseBadCandidateRollsBack is the negative control: a synthetic
// leak on top of fixed against a fixed fleet fails at the canary; the canary
// is rolled back to fixed over its state and the rollback verifies.
func TestRehearseBadCandidateRollsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real fleet of RocksDB child processes (about 25 s of CPU)")
	}
	// Its verdicts read memory; it runs beside one other test at most (sharesTheCores says why that is safe).
	sharesTheCores(t)
	out := filepath.Join(t.TempDir(), "out")
	state := stateRoot(t)
	stdout, stderr, code := runCLI(t, "rehearse", "--from", "fixed", "--to", "fixed+synthetic",
		"--set", "synthetic_leak_bytes=65536", "--instances", "2", "--domains", "2", "--window", "30m",
		"--state-dir", state, "--out", out)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	r := readRehearsal(t, out)
	assert.Equal(t, schema.RehearsalRolledBack, r.Status)
	assert.Equal(t, []string{"baseline", "canary", "rollback"}, phaseNames(r))
	require.NotNil(t, r.Phases[1].Gate)
	assert.Equal(t, "fail", r.Phases[1].Gate.Outcome)
	require.NotNil(t, r.Rollback)
	assert.Equal(t, []int{0}, r.Rollback.Instances)
	assert.True(t, r.Rollback.Verified)
	var names []string
	for _, c := range r.Rollback.Checks {
		names = append(names, c.Name)
		assert.True(t, c.OK, "%s: %s", c.Name, c.Detail)
	}
	assert.Equal(t, []string{"old version opens the new version's state", "changelog offsets preserved", "no record lost",
		"outputs equal the reference replay", "version mapping restored"}, names)
	last := r.Versions[len(r.Versions)-1]
	assert.Equal(t, schema.VersionChange{AtMs: r.Phases[2].StartMs, Instance: 0, From: "fixed+synthetic", To: "fixed", Phase: "rollback"}, last)
	left, err := os.ReadDir(state)
	require.NoError(t, err)
	assert.Empty(t, left, "the fleet's state and changelogs are removed")
}

func TestRehearseBadInputExitsTwoNamingTheFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no from", []string{"--to", "fixed"}, "--from"},
		{"unknown to", []string{"--from", "leaky", "--to", "sorta-fixed"}, "--to"},
		{"same model", []string{"--from", "fixed", "--to", "fixed"}, "--to"},
		{"no instance", []string{"--from", "leaky", "--to", "fixed", "--instances", "0"}, "--instances"},
		{"more instances than tasks", []string{"--from", "leaky", "--to", "fixed", "--instances", "9", "--domains", "1"}, "--instances"},
		{"too many domains", []string{"--from", "leaky", "--to", "fixed", "--instances", "2", "--domains", "3"}, "--domains"},
		{"no restart", []string{"--from", "leaky", "--to", "fixed", "--max-restarts", "0"}, "--max-restarts"},
		{"window below a step", []string{"--from", "leaky", "--to", "fixed", "--window", "1s"}, "--window"},
		{"negative window", []string{"--from", "leaky", "--to", "fixed", "--window", "-1m"}, "--window"},
		{"bad set", []string{"--from", "leaky", "--to", "fixed", "--set", "warp=9"}, "warp"},
		{"missing policy", []string{"--from", "leaky", "--to", "fixed", "--policy", "/nonexistent.yaml"}, "--policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, append([]string{"rehearse", "--out", filepath.Join(t.TempDir(), "o")}, tc.args...)...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// childrenOf lists the processes whose parent is pid (from /proc).
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []int
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces; cut after the last ')'.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, c)
		}
	}
	return out
}

// TestRehearseInterruptLeavesMarkedRecord sends SIGINT to a real rehearsal
// mid-baseline: it exits 130, writes rehearsal.json marked interrupted, its
// instance children are gone and so is the fleet's state.
func TestRehearseInterruptLeavesMarkedRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real fleet")
	}
	out := filepath.Join(t.TempDir(), "out")
	state := stateRoot(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "ROCKSLEAK_MAIN=1",
		"ROCKSLEAK_ARGS=rehearse --from leaky --to fixed --instances 2 --domains 1 --out "+out+" --state-dir "+state)
	errPath := filepath.Join(t.TempDir(), "stderr")
	errFile, err := os.Create(errPath)
	require.NoError(t, err)
	defer errFile.Close()
	cmd.Stderr = errFile
	require.NoError(t, cmd.Start())
	stderr := func() string { b, _ := os.ReadFile(errPath); return string(b) }
	var kids []int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if kids = childrenOf(t, cmd.Process.Pid); len(kids) == 2 && strings.Contains(stderr(), "baseline:") {
			break
		}
	}
	require.Len(t, kids, 2, "two instance children run: %s", stderr())
	time.Sleep(time.Second)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr())
	assert.Equal(t, 130, ee.ExitCode(), stderr())
	r := readRehearsal(t, out)
	assert.Equal(t, schema.RehearsalInterrupted, r.Status)
	require.NotEmpty(t, r.Phases)
	assert.Equal(t, "baseline", r.Phases[0].Name)
	assert.Less(t, r.Phases[0].EndMs, int64(3600000), "the baseline was cut short")
	for _, pid := range kids {
		assert.Error(t, syscall.Kill(pid, 0), "instance child %d is gone", pid)
	}
	assertEmptyDir(t, state)
}
