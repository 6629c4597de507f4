// Command rocksleak reproduces the native-memory leaks of Kafka Streams'
// RocksDB state stores (KAFKA-20616) on real RocksDB and measures them.
//
// Usage:
//
//	rocksleak run [--scenario NAME|FILE] [--models leaky,fixed,...] [--lifecycles N | --duration D]
//	              [--seed N] [--out DIR] [--set key=value]... [--until-verdict]
//	              [--allocator glibc|jemalloc|glibc,jemalloc] [--format text|bench] [--state-dir DIR]
//	rocksleak versions [--versions 4.3.0,4.3.1,...] [--lifecycles N] [--set key=value]... [--out DIR] [--result R.json]
//	rocksleak crosscheck [--lifecycles N] [--doc docs/crosscheck.md] [--result R.json]
//	rocksleak scenarios                   list the scenario catalogue
//	rocksleak scenarios show NAME|FILE    print a scenario, resolved, as YAML
//	rocksleak report [--reanalyze] [--out DIR] RESULT.json
//	rocksleak compare [--md] A.json B.json
//	rocksleak failedclose [--md] FAULTY_DIR CONTROL_DIR   cost per failed close, from a run pair
//	rocksleak gate --baseline B.json --candidate C.json [--policy FILE] [--format text|json|markdown]
//	rocksleak plan --result R.json --model M [--topology FILE] [--png FILE] [topology flags]
//	rocksleak reliability [--scenario NAME] [--seeds N] [--parallel N] [--until-verdict] [--shard K/N]
//	rocksleak merge [--out DIR] DIR...    join reliability shard directories into one report
//	rocksleak rehearse --from MODEL --to MODEL [--instances N] [--domains D] [--max-restarts K] [--window D] [--policy FILE]
//
// Each model runs in a child process of its own: the Go engine's models
// (leaky, fixed, options-fix, finally-fix, read-options-fix, all-fixes) in a
// re-exec of this binary on RocksDB 7.8.3, and kafka-<version> models
// (kafka-4.3.0, kafka-4.3.1, ...: Kafka Streams' own jars, built by make jvm)
// in a Java child. A run writes result.json,
// samples.csv, report.md and PNG plots into its output directory (default
// runs/<UTC time>-<scenario>).
//
// Exit status: 0 success; 1 a run, a model's child or a gate check failed; 2
// bad input (unknown scenario, malformed file, invalid field, a scenario that
// needs more open files than the limit, a kafka-<version> model not built);
// 130 interrupted (SIGINT/SIGTERM),
// after writing a result marked "interrupted": true.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
)

// gitCommit is set at link time (-X main.gitCommit=...).
var gitCommit string

func main() {
	if isChild(os.Args) {
		os.Exit(childMain())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Stdout, os.Stderr, os.Args[1:])
	code := exitCode(err)
	if err != nil && !errors.Is(err, errInterrupted) && !errors.Is(err, errQuiet) {
		fmt.Fprintf(os.Stderr, "rocksleak: %v\n", err)
	}
	os.Exit(code)
}

var (
	// errUsage marks bad command-line input (exit 2).
	errUsage = errors.New("usage")
	// errInterrupted: the run was interrupted and its result written (exit 130).
	errInterrupted = errors.New("interrupted")
	// errQuiet: a failure already reported on the output (exit 1).
	errQuiet = errors.New("failed")
)

// exitStatus carries a command's own exit status (rehearse: 1, 3, 4).
type exitStatus struct {
	code int
	err  error
}

func (e exitStatus) Error() string { return e.err.Error() }
func (e exitStatus) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

func exitCode(err error) int {
	var es exitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &es):
		return es.code
	case errors.Is(err, errInterrupted):
		return 130
	case errors.Is(err, errUsage), errors.Is(err, scenarios.ErrInvalid), errors.Is(err, schema.ErrBadResult),
		engineUsageError(err):
		return 2
	}
	return 1
}

const usage = `rocksleak reproduces KAFKA-20616 on real RocksDB and measures the leaks.

Commands:
  run        run a scenario, each model in its own child process
  scenarios  list the scenario catalogue; "scenarios show NAME" prints one
  report     re-render report.md and plots from a result.json
  compare    compare two results model by model
  gate       pass/fail a candidate result against a baseline (CI gate)
  plan       project memory growth of a topology from a result (capacity plan)
  reliability  run a scenario at many seeds and count each model's verdicts
  versions   which Kafka versions leak, and how much: the JVM engine over every version of the versions table
  crosscheck the Go engine (RocksDB 7.8.3) beside the JVM engine (Kafka's jars), 4.3.0 and 4.3.1
  failedclose  what one failed close costs, from a faulty run and its control (close_failure_rate 0)
  disk-full  what a full state disk costs per retry and per minute, for 4.3.0 and 4.3.1, under each exception handler
  rehearse   rehearse an upgrade on a fleet of instances: canary, gates, expansion, verified rollback
  merge      join "reliability --shard K/N" directories into one reliability report

Run "rocksleak COMMAND -h" for a command's flags.
`

// run is the whole CLI, testable: it returns an error whose kind sets the
// exit status (see exitCode).
func run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command given")
	}
	switch args[0] {
	case "run":
		return runCmd(ctx, stdout, stderr, args[1:])
	case "crosscheck":
		return crosscheckCmd(ctx, stdout, stderr, args[1:])
	case "versions":
		return versionsCmd(ctx, stdout, stderr, args[1:])
	case "disk-full":
		return diskFullCmd(ctx, stdout, stderr, args[1:])
	case "scenarios":
		return scenariosCmd(stdout, args[1:])
	case "reliability":
		return reliabilityCmd(ctx, stdout, stderr, args[1:])
	case "rehearse":
		return rehearseCmd(ctx, stdout, stderr, args[1:])
	case "merge":
		return mergeCmd(stdout, stderr, args[1:])
	case "report":
		return reportCmd(stdout, stderr, args[1:])
	case "compare":
		return compareCmd(stdout, stderr, args[1:])
	case "failedclose":
		return failedCloseCmd(stdout, stderr, args[1:])
	case "gate":
		return gateCmd(stdout, stderr, args[1:])
	case "plan":
		return planCmd(stdout, stderr, args[1:])
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usagef("unknown command %q", args[0])
}
