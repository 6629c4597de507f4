package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharesTheCores marks a test that runs real children (or builds) as
// parallel: such tests run after every serial test of the package has
// finished, two at a time (go test's -parallel, GOMAXPROCS: the two cores of
// this project's machine kind). One real run (a child process and the
// parent's sampler) keeps about one core busy: the default scenario's run
// took 40 s of CPU in 44 s, the rehearsal's fleet of four 245 s in 229 s
// (docs/developing.md), so two at a time use both cores without queueing for
// one. That holds for the tests whose verdicts read RSS or the native heap
// too: each was run beside the rehearsal's fleet, twice, under background
// load, and passed. A test stays serial, and alone, when its assertion
// compares memory figures between two of its own runs made at different
// times.
func sharesTheCores(t *testing.T) {
	t.Helper()
	t.Parallel()
}

// builtBinaries are the rocksleak binaries buildBinary built, by CGO_ENABLED
// value, in one directory for the whole test binary: the tests that need a
// binary without cgo (TestBinaryWithoutCgo and the two examples' merge jobs)
// share one build instead of linking it three times. removeBuiltBinaries
// (from TestMain) removes the directory.
var builtBinaries struct {
	sync.Mutex
	dir  string
	bins map[string]string
}

// buildBinary builds ./cmd/rocksleak with CGO_ENABLED set to cgo, once per
// test binary, and returns its path. Callers must not change it.
func buildBinary(t *testing.T, cgo string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
	b := &builtBinaries
	b.Lock()
	defer b.Unlock()
	if bin, ok := b.bins[cgo]; ok {
		return bin
	}
	if b.dir == "" {
		b.dir, err = os.MkdirTemp("", "rocksleak-test-bin-")
		require.NoError(t, err)
		b.bins = map[string]string{}
	}
	bin := filepath.Join(b.dir, "rocksleak-cgo"+cgo)
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "CGO_ENABLED=%s go build: %s", cgo, out)
	b.bins[cgo] = bin
	return bin
}

// removeBuiltBinaries removes buildBinary's directory.
func removeBuiltBinaries() {
	if builtBinaries.dir != "" {
		os.RemoveAll(builtBinaries.dir)
	}
}

type cliResult struct {
	stdout, stderr string
	code           int
	files          map[string][]byte // what the command wrote into its --out directory
}

func runBinary(t *testing.T, bin string, outDir string, args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	r := cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code, files: map[string][]byte{}}
	if outDir != "" {
		entries, err := os.ReadDir(outDir)
		require.NoError(t, err)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(outDir, e.Name()))
			require.NoError(t, err)
			r.files[e.Name()] = b
		}
	}
	return r
}

func names(m map[string][]byte) []string {
	var n []string
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// TestBinaryWithoutCgo builds the CLI with and without cgo and checks that
// the binary without RocksDB reads results exactly as the full one does
// (report, report --reanalyze, compare, gate, plan, scenarios on the result
// files in the repository's testdata) and that its run, reliability and rehearse exit
// 2 saying why and how to build a full one.
func TestBinaryWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary twice")
	}
	// Two builds and commands on the repository's result files: exit codes and output, nothing measured.
	sharesTheCores(t)
	pure, full := buildBinary(t, "0"), buildBinary(t, "1")

	for _, cmd := range []string{"run", "reliability", "rehearse"} {
		r := runBinary(t, pure, "", cmd, "--scenario", "smoke")
		assert.Equal(t, 2, r.code, "%s without cgo: %s", cmd, r.stderr)
		assert.Contains(t, r.stderr, "built without RocksDB (CGO_ENABLED=0)")
		assert.Contains(t, r.stderr, "make build")
	}

	smoke := filepath.Join("..", "..", "results", "testdata", "smoke", "result.json")
	seed7 := filepath.Join("..", "..", "results", "testdata", "smoke-seed7", "result.json")
	attribution := filepath.Join("..", "..", "results", "testdata", "attribution", "result.json")
	cases := []struct {
		name string
		out  bool // the command writes into --out
		args []string
	}{
		{"report", true, []string{"report", smoke}},
		{"report --reanalyze", true, []string{"report", "--reanalyze", attribution}},
		{"compare", false, []string{"compare", smoke, seed7}},
		{"compare --md", false, []string{"compare", "--md", smoke, seed7}},
		{"gate", false, []string{"gate", "--baseline", smoke, "--candidate", seed7}},
		{"gate --format json", false, []string{"gate", "--baseline", attribution, "--candidate", attribution, "--format", "json"}},
		{"plan", false, []string{"plan", "--result", attribution, "--model", "leaky", "--resident-model", "fixed", "--topology", filepath.Join("..", "..", "examples", "orders-aggregator.yaml")}},
		{"plan --format json", false, []string{"plan", "--result", attribution, "--model", "leaky", "--resident-model", "fixed", "--tasks", "12", "--stores-per-task", "2", "--live-segments", "3", "--segment-interval", "1h", "--format", "json"}},
		{"scenarios", false, []string{"scenarios"}},
		{"scenarios show", false, []string{"scenarios", "show", "kafka-20616"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]cliResult
			// The same --out path for both binaries (it is printed), emptied in between.
			outDir := ""
			args := tc.args
			if tc.out {
				outDir = filepath.Join(t.TempDir(), "out")
				args = append([]string{args[0], "--out", outDir}, args[1:]...)
			}
			for i, bin := range []string{pure, full} {
				require.NoError(t, os.RemoveAll(outDir))
				got[i] = runBinary(t, bin, outDir, args...)
			}
			pureR, fullR := got[0], got[1]
			assert.NotEmpty(t, fullR.stdout, "the command printed something")
			assert.Equal(t, fullR.code, pureR.code, "exit status; stderr without cgo: %s", pureR.stderr)
			assert.Equal(t, fullR.stdout, pureR.stdout, "standard output")
			assert.Equal(t, fullR.stderr, pureR.stderr, "standard error")
			require.Equal(t, names(fullR.files), names(pureR.files), "files written")
			for name, b := range fullR.files {
				assert.True(t, bytes.Equal(b, pureR.files[name]), "%s differs between the two builds", name)
			}
		})
	}
}
