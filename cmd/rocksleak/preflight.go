//go:build cgo

package main

import (
	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
)

// preflightDirs checks, before any work, that the output directory can be
// written and that the state root exists, is writable and (unless
// skipSpace) has the space the scenario needs (harness.NeededDisk); each
// failure is bad input (exit 2) naming its flag. An empty stateRoot is the
// default one (harness.DefaultStateRoot).
func preflightDirs(outDir, stateRoot string, sc scenarios.Scenario, skipSpace bool) error {
	if err := harness.CheckOutDir(outDir); err != nil {
		return usagef("--out: %v", err)
	}
	flag := "--state-dir"
	if stateRoot == "" {
		stateRoot, flag = harness.DefaultStateRoot(), "--state-dir (default "+harness.DefaultStateRoot()+")"
	}
	need := harness.NeededDisk(sc)
	if skipSpace {
		need = 0
	}
	if err := harness.CheckStateDir(stateRoot, need); err != nil {
		return usagef("%s: %v", flag, err)
	}
	return nil
}
