//go:build cgo

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// tinySweep is the tiny scenario the sweep tests run: smoke, few lifecycles.
var tinySweep = []string{"--scenario", "smoke", "--lifecycles", "20"}

func readReliability(t *testing.T, dir string) (*schema.Reliability, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "reliability.json"))
	require.NoError(t, err)
	var rep schema.Reliability
	require.NoError(t, json.Unmarshal(b, &rep))
	return &rep, b
}

// withoutRuns is reliability.json with "runs" (the seed directories' paths)
// emptied: the one part of a report that names where it was written.
func withoutRuns(t *testing.T, rep *schema.Reliability) string {
	t.Helper()
	c := *rep
	c.Runs = nil
	b, err := json.MarshalIndent(&c, "", "  ")
	require.NoError(t, err)
	return string(b)
}

// withoutMeasured is withoutRuns also without the measured figures: the
// per-seed slopes, settling times and calibration errors, which two
// executions of one seed measure anew.
func withoutMeasured(t *testing.T, rep *schema.Reliability) string {
	t.Helper()
	c := *rep
	c.Tally = map[string]*schema.ReliabilityTally{}
	for m, tl := range rep.Tally {
		k := *tl
		k.NativePerLifecycle, k.RSSPerLifecycle = nil, nil
		k.NativeSettledS, k.VerdictSettledS = nil, nil
		k.NativeSettledLifecycles, k.VerdictSettledLifecycles = nil, nil
		c.Tally[m] = &k
	}
	c.Calib = nil
	return withoutRuns(t, &c)
}

// verdictColumns is the printed seed lines and the table's first five columns
// (model and verdict counts).
func verdictColumns(stdout string) string {
	var out []string
	for _, line := range strings.Split(tableOf(stdout), "\n") {
		f := strings.Fields(line)
		if len(f) > 5 && !strings.HasPrefix(line, "seed ") {
			f = f[:5]
		}
		out = append(out, strings.Join(f, " "))
	}
	return strings.Join(out, "\n")
}

// tableOf is what a reliability or merge command prints from the first seed
// line on, without the final "results: DIR" line.
func tableOf(stdout string) string {
	i := strings.Index(stdout, "seed ")
	j := strings.LastIndex(stdout, "\nresults: ")
	if i < 0 || j < i {
		return stdout
	}
	return stdout[i:j]
}

// TestShardedSweepMergesToUnsharded runs a 4-seed sweep of a tiny scenario
// unsharded and in 2 shards, and merges the shards.
//
//   - merge applied to the unsharded run's directory rewrites its report byte
//     for byte (reliability.json without "runs", and the printed seed lines and
//     table): merge tallies per-seed results exactly as reliability does.
//   - the merged shards' report equals the unsharded run's byte for byte
//     without "runs" (paths) and without the measured figures (per-seed slopes,
//     settling times, calibration errors): two separate executions of a seed
//     measure RSS and the native heap anew, and the slopes differ in their
//     last digits (e.g. 51309.6 vs 51197.5 B/lifecycle). Seeds, order, models,
//     sweep and every verdict count are equal, and so are the printed seed
//     lines and the verdict columns of the table.
func TestShardedSweepMergesToUnsharded(t *testing.T) {
	root := t.TempDir()
	state := stateRoot(t)
	whole := filepath.Join(root, "whole")
	stdout, stderr, code := runCLI(t, append([]string{"reliability", "--seeds", "4", "--out", whole, "--state-dir", state}, tinySweep...)...)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
	wholeRep, wholeJSON := readReliability(t, whole)
	assert.Equal(t, []int64{1, 2, 3, 4}, wholeRep.Seeds)

	var shards []string
	for _, k := range []string{"1/2", "2/2"} {
		dir := filepath.Join(root, "shard-"+strings.ReplaceAll(k, "/", "of"))
		so, se, code := runCLI(t, append([]string{"reliability", "--seeds", "4", "--shard", k, "--out", dir, "--state-dir", state}, tinySweep...)...)
		require.Equal(t, 0, code, "stdout: %s\nstderr: %s", so, se)
		rep, _ := readReliability(t, dir)
		assert.Equal(t, k, rep.Shard)
		assert.Len(t, rep.Seeds, 2)
		shards = append(shards, dir)
	}

	// merge reproduces the unsharded report from the unsharded seed directories.
	again := filepath.Join(root, "whole-again")
	againOut, se, code := runCLI(t, "merge", "--out", again, whole)
	require.Equal(t, 0, code, se)
	againRep, _ := readReliability(t, again)
	var wholeParsed schema.Reliability
	require.NoError(t, json.Unmarshal(wholeJSON, &wholeParsed))
	assert.Equal(t, withoutRuns(t, &wholeParsed), withoutRuns(t, againRep))
	assert.Equal(t, tableOf(stdout), tableOf(againOut), "the printed seed lines and table")

	// The shards merge into the same sweep.
	merged := filepath.Join(root, "merged")
	mergedOut, se, code := runCLI(t, append([]string{"merge", "--out", merged}, shards[1], shards[0])...)
	require.Equal(t, 0, code, se)
	mergedRep, _ := readReliability(t, merged)
	assert.Empty(t, mergedRep.Shard)
	assert.Equal(t, wholeRep.Seeds, mergedRep.Seeds)
	assert.Equal(t, wholeRep.Models, mergedRep.Models)
	assert.Equal(t, wholeRep.FirstSeed, mergedRep.FirstSeed)
	assert.Equal(t, wholeRep.SeedCount, mergedRep.SeedCount)
	for i, s := range mergedRep.Seeds {
		assert.Contains(t, mergedRep.Runs[i], "shard-", "seed %d comes from a shard", s)
	}
	assert.Equal(t, withoutMeasured(t, &wholeParsed), withoutMeasured(t, mergedRep))
	assert.Equal(t, verdictColumns(stdout), verdictColumns(mergedOut))

	// Incomplete or overlapping shards are refused (exit 2).
	_, se, code = runCLI(t, "merge", "--out", filepath.Join(root, "half"), shards[0])
	assert.Equal(t, 2, code)
	assert.Contains(t, se, "seed 2 of the sweep")
	_, se, code = runCLI(t, "merge", "--out", filepath.Join(root, "twice"), shards[0], shards[0], shards[1])
	assert.Equal(t, 2, code)
	assert.Contains(t, se, "is in both")
}

// TestMergeKeepsReplicatePairs runs a 2-seed sweep with --replicate and merges
// its directory: the A/A pairs' controlled tallies in reliability.json, the
// seed lines (with their "A/A" words) and the replicate spread table come out
// as reliability wrote and printed them, paired again from each seed's
// result.json and samples.csv and its replicate/ directory.
func TestMergeKeepsReplicatePairs(t *testing.T) {
	sharesTheCores(t)
	root := t.TempDir()
	state := stateRoot(t)
	whole := filepath.Join(root, "whole")
	// 120 lifecycles: enough samples at both seeds for the replicate table's
	// rows (at 20 it prints only its header).
	stdout, stderr, code := runCLI(t, "reliability", "--scenario", "smoke", "--lifecycles", "120", "--seeds", "2",
		"--replicate", "fixed", "--out", whole, "--state-dir", state)
	require.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
	wholeRep, _ := readReliability(t, whole)
	assert.Equal(t, []string{"fixed"}, wholeRep.Replicate)
	require.Contains(t, wholeRep.Controlled, "fixed (replicate) vs fixed (native heap)", "the A/A pair is tallied")
	require.Contains(t, stdout, "replicate (same seed, run twice)")

	again := filepath.Join(root, "again")
	againOut, se, code := runCLI(t, "merge", "--out", again, whole)
	require.Equal(t, 0, code, se)
	againRep, _ := readReliability(t, again)
	assert.Equal(t, withoutRuns(t, wholeRep), withoutRuns(t, againRep))
	assert.Equal(t, tableOf(stdout), tableOf(againOut), "the printed seed lines and table")
	replicateTable := func(s string) string {
		i := strings.Index(s, "replicate (same seed, run twice)")
		if i < 0 {
			return ""
		}
		return s[i:]
	}
	assert.Regexp(t, `(?m)^fixed\s+native heap\s+2\s`, replicateTable(againOut), "merge prints the replicate table's rows, both seeds paired")
	assert.Equal(t, replicateTable(stdout), replicateTable(againOut))
}
