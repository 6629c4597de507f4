//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/engine/goengine"
	"github.com/rocksleak/rocksleak/engine/jvm"
	"github.com/rocksleak/rocksleak/fleet"
	"github.com/rocksleak/rocksleak/harness"
)

// This file and run.go, reliability.go and rehearse.go are the run half of
// the CLI: they drive RocksDB through packages harness and fleet (cgo). A
// binary built with CGO_ENABLED=0 gets engine_nocgo.go instead.

// isChild reports whether this process is a model's child (a re-exec by
// harness.Run) or a fleet instance's (a re-exec by fleet.Rehearse).
func isChild(args []string) bool {
	return os.Getenv(harness.ChildEnvVar) == "1" && len(args) > 1 && (args[1] == goengine.ChildArg || args[1] == fleet.InstanceArg)
}

// childMain is a child process (see isChild): job on stdin, events on fd 3.
func childMain() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	events := os.NewFile(3, "events")
	runChild := goengine.RunChild
	if os.Args[1] == fleet.InstanceArg {
		runChild = fleet.RunInstance
	}
	if err := runChild(ctx, os.Stdin, events); err != nil {
		fmt.Fprintf(os.Stderr, "rocksleak child: %v\n", err)
		return 1
	}
	return 0
}

// engineUsageError reports the run half's errors that mean "cannot run this
// here" (exit status 2).
func engineUsageError(err error) bool {
	return errors.Is(err, harness.ErrLimits) || errors.Is(err, jvm.ErrNotBuilt) || errors.Is(err, engine.ErrUnsupported) ||
		errors.Is(err, harness.ErrBadApp)
}
