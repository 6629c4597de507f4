// Package engine says what an engine is to the process protocol (package
// harness): which run names it runs, what it checks before any work, its
// child's command line, and what it can honour of a scenario and of a run's
// options (Capabilities). The two engines are package engine/goengine (each
// ownership model re-implemented on RocksDB through grocksdb) and package
// engine/jvm (Kafka Streams' own jars in a Java child); harness takes them
// as values and imports neither. Pure Go: it imports spec, scenarios and schema only.
package engine

import (
	"errors"
	"fmt"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
)

// Engine is one way of executing the workload in a child process that
// speaks harness's protocol (the job on standard input, then the op stream;
// sample events on file descriptor 3).
type Engine interface {
	// Name names the engine in messages ("the Go engine").
	Name() string
	// Runs reports whether this engine runs rn.
	Runs(rn spec.RunName) bool
	// Capabilities is what the engine honours; a run that asks for more is
	// refused before any work (Refuse).
	Capabilities() Capabilities
	// Preflight checks, before any model runs, that rn's child can start
	// here; the error names what is missing and the command that makes it.
	Preflight(rn spec.RunName) error
	// Command is the command line of rn's child; workDir is a directory of
	// the harness's own for it (the job's changelog directory, off the state
	// disk under test), where its temporary files go. cleanup (never nil)
	// removes what Command made for it.
	Command(rn spec.RunName, workDir string) (argv []string, cleanup func(), err error)
}

// Capabilities is what an engine honours. Limits lists the scenario fields
// it honours only at some values: a scenario that sets one of them to
// another value is refused, never run under its label.
type Capabilities struct {
	Limits []Limit
	// HeapProfile: its children dump jemalloc heap profiles (rocksleak run
	// --profile).
	HeapProfile bool
	// App: its children run a user's application (rocksleak run --app,
	// harness.App) instead of the op stream, and check it (the child's
	// --check-app) before any work.
	App bool
	// NativeMemProfile: its children record their own native allocations
	// for rocksleak run --profile, and the engine is a NativeProfiler.
	NativeMemProfile bool
}

// NativeProfiler is an engine whose children record their native
// allocations themselves for rocksleak run --profile (the JVM engine's
// async-profiler), instead of dumping jemalloc heap profiles. The child is
// asked to through its job's profile (harness.ProfileJob).
type NativeProfiler interface {
	// ProfileIntervalBytes is the sampling interval the child is asked for.
	ProfileIntervalBytes() int64
	// PreflightProfile checks, before any model runs, that what records
	// is there; the error names the command that makes it.
	PreflightProfile() error
	// ProfileCommand returns a child's command line (Command's) changed to
	// record.
	ProfileCommand(argv []string) ([]string, error)
	// CollectProfile turns what the child left in dir into its profile
	// (schema.HeapProfile.Error says what went wrong), writing the files the
	// run directory gets under model/; samples are the child's.
	CollectProfile(dir, model string, samples []schema.Sample) *schema.HeapProfile
}

// Limit is one scenario field an engine honours only at some values.
type Limit struct {
	// Field is the scenario's field as its YAML names it ("leak_semantics").
	Field string
	// Honours says in words which values the engine honours ("rocksjava").
	Honours string
	// OK reports whether sc's value of Field is one the engine honours.
	OK func(sc scenarios.Scenario) bool
	// Why says why the engine cannot honour the others: the code it would
	// need.
	Why string
}

// ErrUnsupported means a run asks an engine for what it cannot honour (a
// scenario field's value, or --profile): the run is refused before any work.
var ErrUnsupported = errors.New("refused before any work")

// Refuse is nil when e honours sc (and, with profile, --profile); else an
// error wrapping ErrUnsupported that names each field with its value, the
// engine and what it honours.
func Refuse(e Engine, sc scenarios.Scenario, profile bool) error {
	c := e.Capabilities()
	var errs []error
	for _, l := range c.Limits {
		if !l.OK(sc) {
			errs = append(errs, fmt.Errorf("scenario %q sets %s: %s, which %s does not honour (it honours %s only: %s): %w",
				sc.Name, l.Field, value(sc, l.Field), e.Name(), l.Honours, l.Why, ErrUnsupported))
		}
	}
	if profile && !c.HeapProfile && !c.NativeMemProfile {
		errs = append(errs, fmt.Errorf("--profile: %s does not profile its children (profile the Go engine's models): %w",
			e.Name(), ErrUnsupported))
	}
	return errors.Join(errs...)
}

// For returns the first of engines that runs rn; the error names rn when
// none does.
func For(engines []Engine, rn spec.RunName) (Engine, error) {
	for _, e := range engines {
		if e.Runs(rn) {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%s: no engine runs this model", rn)
}

// value is sc's value of the field named key, for a message.
func value(sc scenarios.Scenario, key string) string {
	v, ok := sc.Get(key)
	if !ok {
		return "(no such field)"
	}
	return v
}
