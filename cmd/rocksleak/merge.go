package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/sweep"
)

// mergeCmd is "rocksleak merge [--out DIR] DIR...": it joins the directories
// of "reliability --shard K/N" runs (or any reliability directories of the
// same sweep) into one reliability report. It only reads results, so it works
// in a binary built without cgo. The merged report is the one the unsharded
// run writes for the same seeds: seeds in order, tallied from each seed's
// result.json by the same code; only "runs" (the seed directories' paths)
// differ. The shards must be of one sweep (same scenario, models, first seed,
// seed count and --until-verdict) and cover every seed exactly once.
func mergeCmd(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output directory for the merged reliability.json (default runs/reliability/<UTC time>-<scenario>-merged)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() == 0 {
		return usagef("merge takes one or more reliability directories")
	}
	var parts []*schema.Reliability
	var dirs []string
	for _, dir := range fs.Args() {
		b, err := os.ReadFile(filepath.Join(dir, "reliability.json"))
		if err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		var p schema.Reliability
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("%w: %w: %s: %w", errUsage, sweep.ErrMerge, dir, err)
		}
		parts = append(parts, &p)
		dirs = append(dirs, dir)
	}
	rep, reps, err := sweep.Merge(stdout, parts, dirs)
	if errors.Is(err, sweep.ErrMerge) {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = defaultOut("reliability", rep.Scenario+"-merged")
	}
	if _, err := os.Stat(filepath.Join(dir, "reliability.json")); err == nil {
		return usagef("--out: %s already holds a reliability.json", dir)
	}
	if err := sweep.Write(stdout, dir, rep); err != nil {
		return err
	}
	reps.Write(stdout)
	return nil
}
