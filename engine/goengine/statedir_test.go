package goengine

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
)

// TestHarnessWritesNothingInTheStateDir: with a log directory (the parent's
// Job.ChangelogDir), everything under the state directory belongs to a store
// (task-<k>/gen-<g>/...), and the harness's own files, its changelogs and its
// restores' durations, are in the log directory. Negative control: without
// one, the restore log is under the state directory, so the check sees it.
func TestHarnessWritesNothingInTheStateDir(t *testing.T) {
	sc, err := scenarios.Get("restore-peak")
	require.NoError(t, err)
	for _, kv := range []string{"tasks=1", "stores_per_task=1", "close_failure_rate=1",
		"rebalance_every_steps=1", "rebalance_tasks=1", "key_spread=20", "records_per_step=5"} {
		require.NoError(t, sc.Set(kv))
	}
	require.NoError(t, sc.Validate())
	harnessFiles := func(logDir string) (state, logs []string) {
		root := t.TempDir()
		topo, err := newTopology(sc, lifecycle.Fixed, false, sc.Seed, root)
		require.NoError(t, err)
		topo.useLogDir(logDir)
		ctx := context.Background()
		require.NoError(t, topo.start(ctx))
		for range 6 {
			topo.step(ctx)
		}
		require.NoError(t, topo.logErr)
		require.Positive(t, topo.restoreLog.count(), "every close fails: reopens restore")
		storeFile := regexp.MustCompile(`^task-\d+(/|$)`)
		list := func(dir string) (out []string) {
			require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				require.NoError(t, err)
				rel, _ := filepath.Rel(dir, p)
				if !d.IsDir() && !storeFile.MatchString(rel) {
					out = append(out, rel)
				}
				return nil
			}))
			return out
		}
		state = list(root)
		if logDir != "" {
			logs = list(logDir)
		}
		topo.Stop()
		require.NoError(t, topo.restoreLog.remove())
		return state, logs
	}
	state, logs := harnessFiles(t.TempDir())
	assert.Empty(t, state, "files of the harness's own under the state directory")
	assert.NotEmpty(t, logs, "the changelogs and the restore log are in the log directory")

	state, _ = harnessFiles("")
	assert.NotEmpty(t, state, "negative control: no log directory, the harness's files are under the state directory")
}

// TestVersionProbeIsNotInTheStateDir: the child's RocksDB version probe (a DB
// of its own) opens in the harness's directory, so a child starts on a state
// directory it cannot write (a read-only tmpfs); control: without a log
// directory the probe opens under the state directory and fails there.
func TestVersionProbeIsNotInTheStateDir(t *testing.T) {
	fs, err := harness.MountSmallFS(t.TempDir(), 1<<20, true)
	if errors.Is(err, harness.ErrNoMount) {
		t.Skip(err)
	}
	require.NoError(t, err)
	defer func() { assert.NoError(t, fs.Close()) }()
	var events bytes.Buffer
	_, sampler, err := startChild(harness.Job{StateDir: fs.Dir, ChangelogDir: t.TempDir()}, &events)
	require.NoError(t, err)
	require.NoError(t, sampler.Close())
	assert.Contains(t, events.String(), `"rocksdb_version"`)

	_, _, err = startChild(harness.Job{StateDir: fs.Dir}, &events)
	assert.ErrorContains(t, err, "reading RocksDB's version", "control: the probe under a read-only state directory")
}
