//go:build cgo

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rocksleak/rocksleak/schema"
)

// workflowStep is a step of a GitHub Actions job.
type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// workflowJob is a job of a GitHub Actions workflow.
type workflowJob struct {
	RunsOn    string `yaml:"runs-on"`
	Container any    `yaml:"container"`
	Needs     any    `yaml:"needs"`
	Strategy  struct {
		Matrix struct {
			Shard []int `yaml:"shard"`
		} `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []workflowStep `yaml:"steps"`
}

// containerImage is a job's container image ("container: debian:12" or
// "container: {image: debian:12}"), "" for none.
func containerImage(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case map[string]any:
		s, _ := v["image"].(string)
		return s
	}
	return ""
}

// isDebian12 reports whether this machine runs Debian 12, where the shard
// job's container image and this machine agree.
func isDebian12() bool {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return false
	}
	s := string(b)
	return strings.Contains(s, "\nID=debian\n") && strings.Contains(s, `VERSION_ID="12"`)
}

// cleanCheckout copies the repository's tracked files (as the working tree
// has them: what actions/checkout would check out of this commit, plus
// uncommitted edits) into dir; nothing built or untracked comes along.
func cleanCheckout(t *testing.T, repo, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "ls-files", "-z").Output()
	require.NoError(t, err, "git ls-files")
	for _, f := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join(repo, f)
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		require.NoError(t, err)
		dst := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		if info.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			require.NoError(t, err)
			require.NoError(t, os.Symlink(target, dst))
			continue
		}
		in, err := os.Open(src)
		require.NoError(t, err)
		o, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
		require.NoError(t, err)
		_, err = io.Copy(o, in)
		in.Close()
		require.NoError(t, err)
		require.NoError(t, o.Close())
	}
}

// runStep runs a step's shell script as GitHub Actions runs a run step on
// Linux (bash --noprofile --norc -eo pipefail) in dir.
func runStep(t *testing.T, dir, name, script string) {
	t.Helper()
	require.NotContains(t, script, "${{", "%s: every expression substituted", name)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CI=true", "GITHUB_ACTIONS=true", "DEBIAN_FRONTEND=noninteractive")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	require.NoError(t, err, "step %q:\n%s\noutput:\n%s", name, script, out.String())
	t.Logf("step %q: ok", name)
}

// tinyWorkflowSweep makes the shard step's sweep run in seconds: the smoke scenario
// at 20 lifecycles, 4 seeds (one per shard of 4); --shard and --out stay the
// workflow's.
func tinyWorkflowSweep(script string) string {
	script = regexp.MustCompile(`--scenario \S+`).ReplaceAllString(script, "--scenario smoke")
	script = regexp.MustCompile(`--seeds \d+`).ReplaceAllString(script, "--seeds 4")
	return regexp.MustCompile(`(rocksleak reliability [^\n]*)`).ReplaceAllString(script, "$1 --lifecycles 20")
}

// TestGitHubActionsWorkflowSteps runs examples/github-actions-reliability.yml
// on this machine as GitHub would run it in the debian:12 container its shard
// jobs name: from a clean copy of the repository, every step of the shard job
// in order for shard 1 (install with apt-get, build with cgo, the sweep made
// tiny, the artifact's directory present), the sweep step alone for the other
// shards (the job is the same but for the matrix value), then every step of
// the merge job in order in a second clean copy, the shard artifacts
// downloaded as download-artifact puts them. It needs Debian 12 and root (the
// container's user), and runs apt-get update (network). It is long for make
// test, so it runs only with ROCKSLEAK_WORKFLOW_TEST=1: make ci-example.
func TestGitHubActionsWorkflowSteps(t *testing.T) {
	if os.Getenv("ROCKSLEAK_WORKFLOW_TEST") != "1" {
		t.Skip("builds rocksleak twice from a clean copy and runs apt-get (35 s with a warm build cache, about 100 s " +
			"from a fresh clone): run it with make ci-example (ROCKSLEAK_WORKFLOW_TEST=1)")
	}
	if !isDebian12() {
		t.Skip("the shard job runs in debian:12; this machine is not Debian 12")
	}
	if os.Geteuid() != 0 {
		t.Skip("the container's steps run as root (apt-get without sudo); run this test as root")
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "github-actions-reliability.yml"))
	require.NoError(t, err)
	var wf struct {
		Jobs map[string]workflowJob `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &wf))
	shard, merge := wf.Jobs["shard"], wf.Jobs["merge"]
	require.Equal(t, "debian:12", containerImage(shard.Container), "the shard jobs build against Debian 12's RocksDB 7.8.3")
	matrix := shard.Strategy.Matrix.Shard
	require.NotEmpty(t, matrix)

	repo, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	// A fixed directory per repository, so the build cache (keyed by the
	// package's directory) serves repeated runs; removed before and after.
	sum := sha256.Sum256([]byte(repo))
	base := filepath.Join(os.TempDir(), "rocksleak-workflow-"+hex.EncodeToString(sum[:6]))
	require.NoError(t, os.RemoveAll(base))
	t.Cleanup(func() { os.RemoveAll(base) })

	// The shard job, every step in order, for matrix[0]; then the sweep step
	// for the other shards in the same checkout.
	shardDir := filepath.Join(base, "shard")
	for i, k := range matrix {
		runShardJob(t, shard, repo, shardDir, k, i > 0)
	}

	// The merge job, every step in order, in a clean copy of its own.
	mergeDir := filepath.Join(base, "merge")
	runMergeJob(t, merge, repo, mergeDir, shardDir, matrix)
	b, err := os.ReadFile(filepath.Join(mergeDir, "merged", "reliability.json"))
	require.NoError(t, err)
	var rep schema.Reliability
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, []int64{1, 2, 3, 4}, rep.Seeds, "the merged report holds every shard's seed")
	assert.Empty(t, rep.Shard)
}

// runShardJob runs the workflow's shard job for matrix value k in shardDir,
// every step in order; with sweepOnly it runs only the reliability sweep and
// checks the upload step's path (the other shards share the first checkout).
func runShardJob(t *testing.T, shard workflowJob, repo, shardDir string, k int, sweepOnly bool) {
	expand := func(s string) string { return strings.ReplaceAll(s, "${{ matrix.shard }}", strconv.Itoa(k)) }
	for i, st := range shard.Steps {
		name := expand(st.Name)
		switch {
		case strings.HasPrefix(st.Uses, "actions/checkout@"):
			require.Zero(t, i, "the checkout comes first")
			if !sweepOnly {
				cleanCheckout(t, repo, shardDir)
			}
		case strings.HasPrefix(st.Uses, "actions/setup-go@"):
			if !sweepOnly {
				_, err := exec.LookPath("go")
				require.NoError(t, err, "setup-go puts go on PATH; here it must be there")
				require.Equal(t, "go.mod", st.With["go-version-file"])
			}
		case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
			info, err := os.Stat(filepath.Join(shardDir, expand(st.With["path"])))
			require.NoError(t, err, "the artifact's path exists")
			require.True(t, info.IsDir())
		case st.Run != "" && strings.Contains(st.Run, "rocksleak reliability"):
			runStep(t, shardDir, name, tinyWorkflowSweep(expand(st.Run)))
		case st.Run != "":
			if !sweepOnly {
				runStep(t, shardDir, name, expand(st.Run))
			}
		default:
			t.Fatalf("shard step %d (%q, uses %q): this test does not know how to run it", i, st.Name, st.Uses)
		}
	}
}

// runMergeJob runs the workflow's merge job, every step in order, in a clean
// copy of repo at mergeDir, downloading each shard's artifact from shardDir.
func runMergeJob(t *testing.T, merge workflowJob, repo, mergeDir, shardDir string, matrix []int) {
	for i, st := range merge.Steps {
		switch {
		case strings.HasPrefix(st.Uses, "actions/checkout@"):
			require.Zero(t, i, "the checkout comes first")
			cleanCheckout(t, repo, mergeDir)
		case strings.HasPrefix(st.Uses, "actions/setup-go@"):
			_, err := exec.LookPath("go")
			require.NoError(t, err)
		case strings.HasPrefix(st.Uses, "actions/download-artifact@"):
			// Each artifact shard-K lands in <path>/shard-K.
			require.Equal(t, "shard-*", st.With["pattern"])
			for _, k := range matrix {
				name := fmt.Sprintf("shard-%d", k)
				require.NoError(t, os.CopyFS(filepath.Join(mergeDir, st.With["path"], name), os.DirFS(filepath.Join(shardDir, name))))
			}
		case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
			info, err := os.Stat(filepath.Join(mergeDir, st.With["path"]))
			require.NoError(t, err, "the merged artifact's path exists")
			require.True(t, info.IsDir())
		case st.Run != "":
			runStep(t, mergeDir, st.Name, st.Run)
		default:
			t.Fatalf("merge step %d (%q, uses %q): this test does not know how to run it", i, st.Name, st.Uses)
		}
	}
}
