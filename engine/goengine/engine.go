package goengine

import (
	"os"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/spec"
)

// ChildArg is the argument that makes the rocksleak binary a Go engine child
// (its entry point then calls RunChild).
const ChildArg = "__child"

// Engine is the Go engine (an engine.Engine): its child is a re-exec of a Go
// binary whose entry point calls RunChild. It runs every model that is not a
// kafka-<version> one.
type Engine struct {
	// Exe and Args start a child: default the running binary with
	// {ChildArg}.
	Exe  string
	Args []string
}

// Name names the engine in messages.
func (Engine) Name() string { return "the Go engine" }

// Runs reports whether rn is one of the Go engine's models.
func (Engine) Runs(rn spec.RunName) bool { return !rn.JVM() }

// Capabilities: the Go engine honours every scenario field, and its children
// dump jemalloc heap profiles.
func (Engine) Capabilities() engine.Capabilities { return engine.Capabilities{HeapProfile: true} }

// Preflight has nothing to check: the child is this binary.
func (Engine) Preflight(spec.RunName) error { return nil }

// Command is Exe and Args (their defaults when unset); it makes nothing.
func (e Engine) Command(spec.RunName, string) (argv []string, cleanup func(), err error) {
	exe, args := e.Exe, e.Args
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, func() {}, err
		}
	}
	if args == nil {
		args = []string{ChildArg}
	}
	return append([]string{exe}, args...), func() {}, nil
}
