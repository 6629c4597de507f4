package main

import (
	"path/filepath"
	"time"
)

// runsDir is where the commands write their outputs by default: runs/ under
// the working directory, beside the sources and not one of their packages
// (git ignores it). A run goes to runs/<UTC time>-<name>, a reliability sweep
// to runs/reliability/, a rehearsal to runs/rehearsals/.
const runsDir = "runs"

// defaultOut is the default output directory of a command: under runsDir,
// in sub ("" for a run), named by the UTC time now and name.
func defaultOut(sub, name string) string {
	return filepath.Join(runsDir, sub, time.Now().UTC().Format("20060102T150405Z")+"-"+name)
}
