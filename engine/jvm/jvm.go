// Package jvm is the JVM engine's Go side: the command line that starts the
// Java child (engine/jvm/child, a Maven module: Kafka Streams' own store
// classes from the released jars of a Kafka version, with the rocksdbjni its
// pom names) for a kafka-<version> model, the check that it is built, and
// what the child honours (Engine, an engine.Engine). The Java child speaks
// package harness's protocol; engine/jvm/kafkatests runs Kafka's own tests
// against the jars and engine/jvm/kafkaversions reads the versions table.
package jvm

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rocksleak/rocksleak/engine"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

// The JVM engine's build, as `make jvm` lays it out in Engine.Dir.
const (
	// ChildJar is the JVM child's jar (engine/jvm/child, built by Maven); its
	// manifest's Main-Class is the class the parent starts.
	ChildJar = "rocksleak-child.jar"
	// DefaultMaxHeap is the JVM child's Java heap (-Xms and -Xmx, touched
	// at start by -XX:+AlwaysPreTouch, so that the heap's growth is not read
	// as a native leak in RSS).
	DefaultMaxHeap = "256m"
)

// ClasspathFile is the file in Engine.Dir holding the classpath Maven
// resolved for Kafka version v (kafka-streams, kafka-streams-test-utils, the
// rocksdbjni its pom names, their dependencies), one line, ':'-separated.
func ClasspathFile(v string) string { return "classpath-" + v + ".txt" }

// Engine is the JVM engine (an engine.Engine): how the parent starts the
// children of the models named kafka-<version> (spec.KafkaVersion), Kafka
// Streams' own jars run by the Java child. The zero value uses the defaults.
type Engine struct {
	// Java is the java executable; default $JAVA_HOME/bin/java when JAVA_HOME
	// is set, else java on PATH.
	Java string
	// Dir holds what `make jvm` builds: ChildJar and ClasspathFile for
	// each version; default DefaultDir().
	Dir string
	// MaxHeap is the Java heap, -Xms and -Xmx; default DefaultMaxHeap.
	MaxHeap string
	// Args are more JVM options, after the parent's; default the
	// whitespace-separated words of $ROCKSLEAK_JVM_OPTS (for experiments with
	// the JVM's own settings).
	Args []string
}

// ChildArgsEnvVar names arguments for the Java child itself, after its
// main class: "--bare" runs the same store operations with no sampling and
// no ledger (the baseline of make bench-jvm; the run then has no samples to
// analyse, only its summary's counts and elapsed time).
const ChildArgsEnvVar = "ROCKSLEAK_JVM_CHILD_ARGS"

// OptsEnvVar names extra JVM options (see Engine.Args).
const OptsEnvVar = "ROCKSLEAK_JVM_OPTS"

// ErrNotBuilt means a kafka-<version> model cannot start: java, the
// child's jar or that version's classpath is missing.
var ErrNotBuilt = errors.New("the JVM engine is not built for this model")

// DirEnvVar names the JVM build directory when set (make test sets it for
// the tests, whose binaries run from a temporary directory).
const DirEnvVar = "ROCKSLEAK_JVM_DIR"

// DefaultDir is $ROCKSLEAK_JVM_DIR when set, else build/jvm beside the bin
// directory of the running binary (make build puts it in bin/) when the
// child's jar is there, else build/jvm under the working directory.
func DefaultDir() string {
	if d := os.Getenv(DirEnvVar); d != "" {
		return d
	}
	if exe, err := os.Executable(); err == nil {
		d := filepath.Join(filepath.Dir(filepath.Dir(exe)), "build", "jvm")
		if _, err := os.Stat(filepath.Join(d, ChildJar)); err == nil {
			return d
		}
	}
	return filepath.Join("build", "jvm")
}

func (j Engine) java() string {
	switch {
	case j.Java != "":
		return j.Java
	case os.Getenv("JAVA_HOME") != "":
		return filepath.Join(os.Getenv("JAVA_HOME"), "bin", "java")
	}
	return "java"
}

func (j Engine) dir() string {
	if j.Dir != "" {
		return j.Dir
	}
	return DefaultDir()
}

// Versions lists the Kafka versions built in the JVM's directory (those with
// a classpath file), sorted.
func (j Engine) Versions() []string {
	m, _ := filepath.Glob(filepath.Join(j.dir(), ClasspathFile("*")))
	var out []string
	for _, f := range m {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "classpath-"), ".txt"))
	}
	sort.Strings(out)
	return out
}

// CommandLine returns the command line of a JVM child running Kafka version v
// with its temporary files under tmp: java with Native Memory Tracking
// (summary: the JVM's own memory by category, apart from RocksDB's, which NMT
// does not see), a fixed, pre-touched heap, the serial collector (one GC
// thread, no concurrent marking touching memory between samples), no
// hsperfdata file, the child's jar and the version's classpath. It fails
// wrapping ErrNotBuilt, naming what is missing and the command that builds
// it.
func (j Engine) CommandLine(v, tmp string) ([]string, error) {
	java := j.java()
	if _, err := exec.LookPath(java); err != nil {
		return nil, fmt.Errorf("%w: %s not found (install Debian's openjdk-17-jdk-headless: make run and make test do)", ErrNotBuilt, java)
	}
	dir := j.dir()
	jar := filepath.Join(dir, ChildJar)
	main, err := mainClass(jar)
	if err != nil {
		return nil, fmt.Errorf("%w: the Java child: %w (build it with make jvm)", ErrNotBuilt, err)
	}
	cpFile := filepath.Join(dir, ClasspathFile(v))
	b, err := os.ReadFile(cpFile)
	if err != nil {
		built := "none"
		if vs := j.Versions(); len(vs) > 0 {
			built = strings.Join(vs, ", ")
		}
		return nil, fmt.Errorf("%w: Kafka %s: no classpath %s (versions built: %s; make jvm KAFKA_VERSIONS=%q builds it)",
			ErrNotBuilt, v, cpFile, built, v)
	}
	cp := strings.TrimSpace(string(b))
	if cp == "" {
		return nil, fmt.Errorf("%w: Kafka %s: %s is empty (rebuild with make jvm)", ErrNotBuilt, v, cpFile)
	}
	heap := j.MaxHeap
	if heap == "" {
		heap = DefaultMaxHeap
	}
	args := []string{java,
		"-XX:NativeMemoryTracking=summary",
		"-Xms" + heap, "-Xmx" + heap, "-XX:+AlwaysPreTouch",
		"-XX:+UseSerialGC",
		// The JIT's first tier only (C1). C2's compilations malloc arenas of
		// ~14 MiB (NMT's Compiler category) and free them when done, as
		// methods keep getting hot through a run; glibc keeps what they
		// freed, so RSS rose in steps of 7-9 MiB that were the JVM's, not
		// RocksDB's, and the RSS interval of kafka-4.3.1 spanned 50 KiB per
		// lifecycle. C1 compiles the same code with small arenas. The JIT
		// decides nothing the leaks depend on. $ROCKSLEAK_JVM_OPTS comes
		// after and wins (-XX:TieredStopAtLevel=4 brings C2 back).
		"-XX:TieredStopAtLevel=1",
		"-XX:-UsePerfData",
		"-Djava.io.tmpdir=" + tmp, // RocksJava extracts its native library here
	}
	extra := j.Args
	if extra == nil {
		extra = strings.Fields(os.Getenv(OptsEnvVar))
	}
	args = append(args, extra...)
	args = append(args, "-cp", jar+string(os.PathListSeparator)+cp, main)
	return append(args, strings.Fields(os.Getenv(ChildArgsEnvVar))...), nil
}

// mainClass reads Main-Class from a jar's manifest.
func mainClass(jar string) (string, error) {
	z, err := zip.OpenReader(jar)
	if err != nil {
		return "", err
	}
	defer z.Close()
	f, err := z.Open("META-INF/MANIFEST.MF")
	if err != nil {
		return "", fmt.Errorf("%s: %w", jar, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Main-Class:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", jar, err)
	}
	return "", fmt.Errorf("%s: its manifest names no Main-Class", jar)
}

// Name names the engine in messages.
func (Engine) Name() string { return "the JVM engine" }

// Runs reports whether rn is a kafka-<version> model.
func (Engine) Runs(rn spec.RunName) bool { return rn.JVM() }

// Capabilities is what the Java child honours (see engine.Capabilities): not
// the what-if of a binding without RocksJava's safety net (it runs
// RocksJava's own close), nor failed inits of window stores or sticky close
// failures (its Executor throws on them), nor jemalloc heap dumps: its
// --profile is async-profiler's nativemem mode (nativemem.go). Kafka's
// bounded-memory config setter it honours (BoundedMemorySetter.java), failed
// inits of key-value stores (LockHolder.java), and the restore scratch of
// restore_scratch_bytes, malloc'd and touched as the Go engine's
// (RestoreScratch.java).
func (Engine) Capabilities() engine.Capabilities { return capabilities }

var capabilities = engine.Capabilities{App: true, NativeMemProfile: true, Limits: []engine.Limit{
	{Field: "leak_semantics", Honours: string(spec.RocksJava),
		OK:  func(sc scenarios.Scenario) bool { s, err := sc.Semantics(); return err == nil && s == spec.RocksJava },
		Why: "the Java child runs RocksJava's own RocksDB.close(), whose owned column-family handles are its safety net"},
	initFailuresOnWindowStores,
	{Field: "close_failure_kind", Honours: string(spec.FaultTransient) + " (or close_failure_rate 0)",
		OK: func(sc scenarios.Scenario) bool {
			return sc.CloseFailureRate == 0 || sc.CloseFailureKind == "" || sc.CloseFailureKind == spec.FaultTransient
		},
		Why: "the Java child injects the transient close failure (Kafka's failed status write) only; a sticky one loses the store's unflushed records and offsets, and the child has no catch-up restore from a store's committed offset (docs/fidelity.md)"},
}}

// initFailuresOnWindowStores: the Java child fails a key-value store's
// inits as Kafka meets them (a second RocksDB open holds the store's LOCK, so
// RocksDBStore.openDB throws ProcessorStateException; its LockHolder), but
// not a window store's. Its segment opens fail inside a put
// (AbstractSegments.getOrCreateSegment), which keeps a segment whose openDB
// failed in its map, so the put cannot be retried as the Go engine retries it:
// Kafka would close the task dirty and reopen it, another schedule.
var initFailuresOnWindowStores = engine.Limit{Field: "init_failure_rate", Honours: "0 on window stores (any rate on kv and migrating stores)",
	OK:  func(sc scenarios.Scenario) bool { return sc.InitFailureRate == 0 || sc.Store != scenarios.StoreWindow },
	Why: "a window segment whose open fails inside a put stays in Kafka's segment map unopened (AbstractSegments.getOrCreateSegment), so the put cannot be retried as the Go engine retries it"}

// Preflight checks that rn's child can start (see CommandLine); the error
// wraps ErrNotBuilt.
func (j Engine) Preflight(rn spec.RunName) error {
	_, err := j.CommandLine(rn.KafkaVersion, os.TempDir())
	return err
}

// Command is rn's child's command line, its temporary files (RocksJava's
// extracted library) in workDir/tmp, off the state disk under test, made here
// and removed by cleanup.
func (j Engine) Command(rn spec.RunName, workDir string) (argv []string, cleanup func(), err error) {
	tmp := filepath.Join(workDir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return nil, func() {}, err
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	if argv, err = j.CommandLine(rn.KafkaVersion, tmp); err != nil {
		cleanup()
		return nil, func() {}, err
	}
	return argv, cleanup, nil
}
