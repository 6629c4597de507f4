//go:build cgo

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rocksleak/rocksleak/schema"
)

// shellCommands runs script with /bin/sh in dir, with env added, where
// rocksleak is a shell function that records its arguments instead of running:
// the arguments of each rocksleak call as the shell expanded them (variables,
// arithmetic, globs).
func shellCommands(t *testing.T, dir, script string, env ...string) [][]string {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "rocksleak() { printf '%s\\0' \"$@\"; printf '\\036\\0'; }\n"+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), "sh: %s", errOut.String())
	var calls [][]string
	var cur []string
	for _, a := range strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00") {
		if a == "\x1e" {
			calls = append(calls, cur)
			cur = nil
			continue
		}
		cur = append(cur, a)
	}
	return calls
}

// flagValue is the value of --name in args.
func flagValue(args []string, name string) string {
	if i := slices.Index(args, "--"+name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// tinyArgs makes a reliability command of an example run in seconds: the
// scenario becomes smoke at 20 lifecycles and the sweep 4 seeds (one per
// shard of 4); every other argument (--shard, --out) is the example's.
func tinyArgs(t *testing.T, args []string) []string {
	t.Helper()
	out := slices.Clone(args)
	for name, v := range map[string]string{"scenario": "smoke", "seeds": "4"} {
		i := slices.Index(out, "--"+name)
		require.GreaterOrEqual(t, i, 0, "the example names --%s", name)
		out[i+1] = v
	}
	return append(out, "--lifecycles", "20")
}

// runExampleShard runs one shard command of an example (tiny) and checks it
// ran the shard it says.
func runExampleShard(t *testing.T, dir string, args []string, k, n int) {
	t.Helper()
	require.Equal(t, "reliability", args[0], "%q", args)
	require.Equal(t, fmt.Sprintf("%d/%d", k, n), flagValue(args, "shard"), "shard %d of %d", k, n)
	args = tinyArgs(t, args)
	// The command runs in this process, whose working directory the test leaves alone (it runs beside others):
	// a relative --out is taken from dir, where the example's shell runs it.
	if i := slices.Index(args, "--out"); i >= 0 && i+1 < len(args) && !filepath.IsAbs(args[i+1]) {
		args[i+1] = filepath.Join(dir, args[i+1])
	}
	stdout, stderr, code := runCLI(t, args...)
	require.Equal(t, 0, code, "%q\nstdout: %s\nstderr: %s", args, stdout, stderr)
}

// runExampleMerge runs a merge command of an example with a binary built
// without cgo (merge only reads results) and checks the merged report holds
// the whole sweep.
func runExampleMerge(t *testing.T, pure, dir string, args []string, mergedDir string) {
	t.Helper()
	require.Equal(t, "merge", args[0], "%q", args)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(pure, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil {
		t.Fatalf("%q: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(mergedDir, "reliability.json"))
	require.NoError(t, err)
	var rep schema.Reliability
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, []int64{1, 2, 3, 4}, rep.Seeds)
	assert.Empty(t, rep.Shard)
	assert.Equal(t, []string{"leaky", "fixed"}, rep.Models)
}

// TestGitHubActionsExample parses examples/github-actions-reliability.yml and
// runs the rocksleak commands it names, as its jobs would, in one directory
// (download-artifact with path "." puts each shard-K artifact where the shard
// job wrote it): each matrix entry's shard (tiny), then the merge job's merge
// with a CGO_ENABLED=0 binary, as the merge job builds it.
func TestGitHubActionsExample(t *testing.T) {
	// It asserts the example's commands and the merged sweep's seeds and models, no verdict or memory figure: it
	// shares the cores (most of its time is the CGO_ENABLED=0 build).
	sharesTheCores(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "github-actions-reliability.yml"))
	require.NoError(t, err)
	var wf struct {
		Jobs map[string]struct {
			Needs    any `yaml:"needs"`
			Strategy struct {
				Matrix struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Name string `yaml:"name"`
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &wf))
	shardJob, mergeJob := wf.Jobs["shard"], wf.Jobs["merge"]
	require.NotEmpty(t, shardJob.Steps)
	require.Equal(t, "shard", mergeJob.Needs, "merge waits for every shard")
	matrix := shardJob.Strategy.Matrix.Shard
	n := len(matrix)
	for i, k := range matrix {
		require.Equal(t, i+1, k, "the matrix lists shards 1..N")
	}
	step := func(steps []struct {
		Name string `yaml:"name"`
		Uses string `yaml:"uses"`
		Run  string `yaml:"run"`
	}, word string) string {
		for _, s := range steps {
			if strings.Contains(s.Run, word) {
				return strings.ReplaceAll(s.Run, "./rocksleak", "rocksleak")
			}
		}
		t.Fatalf("no step runs %q", word)
		return ""
	}
	assert.Contains(t, step(mergeJob.Steps, "go build"), "CGO_ENABLED=0", "the merge job builds without cgo")

	tmp := t.TempDir()
	pure := buildBinary(t, "0")
	work := filepath.Join(tmp, "work")
	require.NoError(t, os.Mkdir(work, 0o755))
	shardRun := step(shardJob.Steps, "rocksleak reliability")
	for _, k := range matrix {
		script := strings.ReplaceAll(shardRun, "${{ matrix.shard }}", strconv.Itoa(k))
		calls := shellCommands(t, work, script)
		require.Len(t, calls, 1)
		runExampleShard(t, work, calls[0], k, n)
	}
	calls := shellCommands(t, work, step(mergeJob.Steps, "rocksleak merge"))
	require.Len(t, calls, 1)
	require.Equal(t, n, len(calls[0])-3, "merge gets every shard directory: %q", calls[0])
	runExampleMerge(t, pure, work, calls[0], filepath.Join(work, flagValue(calls[0], "out")))
}

// TestKubernetesIndexedJobExample parses examples/k8s-reliability-job.yaml
// (two Jobs) and runs the commands its containers run: the Indexed Job's
// script once per completion index with JOB_COMPLETION_INDEX set (the shell
// expands it into --shard), then the merge Job's with a CGO_ENABLED=0 binary.
// The shared volume /results is a temporary directory.
func TestKubernetesIndexedJobExample(t *testing.T) {
	// As TestGitHubActionsExample: commands, seeds and models, no verdict or memory figure.
	sharesTheCores(t)
	f, err := os.Open(filepath.Join("..", "..", "examples", "k8s-reliability-job.yaml"))
	require.NoError(t, err)
	defer f.Close()
	type job struct {
		Kind string `yaml:"kind"`
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Template       struct {
				Spec struct {
					Containers []struct {
						Command []string `yaml:"command"`
						Args    []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	var jobs []job
	dec := yaml.NewDecoder(f)
	for {
		var j job
		err := dec.Decode(&j)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		jobs = append(jobs, j)
	}
	require.Len(t, jobs, 2)
	sweep, merge := jobs[0], jobs[1]
	require.Equal(t, "Job", sweep.Kind)
	require.Equal(t, "Indexed", sweep.Spec.CompletionMode)
	n := sweep.Spec.Completions
	require.Positive(t, n)
	script := func(j job) string {
		c := j.Spec.Template.Spec.Containers
		require.Len(t, c, 1)
		require.Equal(t, []string{"/bin/sh", "-c"}, c[0].Command)
		require.Len(t, c[0].Args, 1)
		return c[0].Args[0]
	}

	tmp := t.TempDir()
	pure := buildBinary(t, "0")
	volume := filepath.Join(tmp, "results")
	require.NoError(t, os.Mkdir(volume, 0o755))
	onVolume := func(s string) string { return strings.ReplaceAll(s, "/results", volume) }
	for idx := 0; idx < n; idx++ {
		calls := shellCommands(t, tmp, onVolume(script(sweep)), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", idx))
		require.Len(t, calls, 1)
		runExampleShard(t, tmp, calls[0], idx+1, n)
	}
	calls := shellCommands(t, tmp, onVolume(script(merge)))
	require.Len(t, calls, 1)
	require.Equal(t, n, len(calls[0])-3, "merge gets every shard directory: %q", calls[0])
	runExampleMerge(t, pure, tmp, calls[0], flagValue(calls[0], "out"))
}
