package harness

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

	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/spec"
)

// The JVM engine's build, as `make jvm` lays it out in JVM.Dir.
const (
	// JVMChildJar is the JVM child's jar (engine/jvm/child, built by Maven); its
	// manifest's Main-Class is the class the parent starts.
	JVMChildJar = "rocksleak-child.jar"
	// DefaultJVMMaxHeap is the JVM child's Java heap (-Xms and -Xmx, touched
	// at start by -XX:+AlwaysPreTouch, so that the heap's growth is not read
	// as a native leak in RSS).
	DefaultJVMMaxHeap = "256m"
)

// JVMClasspathFile is the file in JVM.Dir holding the classpath Maven
// resolved for Kafka version v (kafka-streams, kafka-streams-test-utils, the
// rocksdbjni its pom names, their dependencies), one line, ':'-separated.
func JVMClasspathFile(v string) string { return "classpath-" + v + ".txt" }

// JVM says how the parent starts the JVM engine's children: the models named
// kafka-<version> (spec.KafkaVersion), Kafka Streams' own jars run by the
// Java child. The zero value uses the defaults.
type JVM struct {
	// Java is the java executable; default $JAVA_HOME/bin/java when JAVA_HOME
	// is set, else java on PATH.
	Java string
	// Dir holds what `make jvm` builds: JVMChildJar and JVMClasspathFile for
	// each version; default DefaultJVMDir().
	Dir string
	// MaxHeap is the Java heap, -Xms and -Xmx; default DefaultJVMMaxHeap.
	MaxHeap string
	// Args are more JVM options, after the parent's; default the
	// whitespace-separated words of $ROCKSLEAK_JVM_OPTS (for experiments with
	// the JVM's own settings).
	Args []string
}

// JVMChildArgsEnvVar names arguments for the Java child itself, after its
// main class: "--bare" runs the same store operations with no sampling and
// no ledger (the baseline of make bench-jvm; the run then has no samples to
// analyse, only its summary's counts and elapsed time).
const JVMChildArgsEnvVar = "ROCKSLEAK_JVM_CHILD_ARGS"

// JVMOptsEnvVar names extra JVM options (see JVM.Args).
const JVMOptsEnvVar = "ROCKSLEAK_JVM_OPTS"

// ErrJVMNotBuilt means a kafka-<version> model cannot start: java, the
// child's jar or that version's classpath is missing.
var ErrJVMNotBuilt = errors.New("the JVM engine is not built for this model")

// JVMDirEnvVar names the JVM build directory when set (make test sets it for
// the tests, whose binaries run from a temporary directory).
const JVMDirEnvVar = "ROCKSLEAK_JVM_DIR"

// DefaultJVMDir is $ROCKSLEAK_JVM_DIR when set, else build/jvm beside the bin
// directory of the running binary (make build puts it in bin/) when the
// child's jar is there, else build/jvm under the working directory.
func DefaultJVMDir() string {
	if d := os.Getenv(JVMDirEnvVar); d != "" {
		return d
	}
	if exe, err := os.Executable(); err == nil {
		d := filepath.Join(filepath.Dir(filepath.Dir(exe)), "build", "jvm")
		if _, err := os.Stat(filepath.Join(d, JVMChildJar)); err == nil {
			return d
		}
	}
	return filepath.Join("build", "jvm")
}

func (j JVM) java() string {
	switch {
	case j.Java != "":
		return j.Java
	case os.Getenv("JAVA_HOME") != "":
		return filepath.Join(os.Getenv("JAVA_HOME"), "bin", "java")
	}
	return "java"
}

func (j JVM) dir() string {
	if j.Dir != "" {
		return j.Dir
	}
	return DefaultJVMDir()
}

// Versions lists the Kafka versions built in the JVM's directory (those with
// a classpath file), sorted.
func (j JVM) Versions() []string {
	m, _ := filepath.Glob(filepath.Join(j.dir(), JVMClasspathFile("*")))
	var out []string
	for _, f := range m {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "classpath-"), ".txt"))
	}
	sort.Strings(out)
	return out
}

// Command returns the command line of a JVM child running Kafka version v
// with its temporary files under tmp: java with Native Memory Tracking
// (summary: the JVM's own memory by category, apart from RocksDB's, which NMT
// does not see), a fixed, pre-touched heap, the serial collector (one GC
// thread, no concurrent marking touching memory between samples), no
// hsperfdata file, the child's jar and the version's classpath. It fails
// wrapping ErrJVMNotBuilt, naming what is missing and the command that builds
// it.
func (j JVM) Command(v, tmp string) ([]string, error) {
	java := j.java()
	if _, err := exec.LookPath(java); err != nil {
		return nil, fmt.Errorf("%w: %s not found (install Debian's openjdk-17-jdk-headless: make run and make test do)", ErrJVMNotBuilt, java)
	}
	dir := j.dir()
	jar := filepath.Join(dir, JVMChildJar)
	main, err := mainClass(jar)
	if err != nil {
		return nil, fmt.Errorf("%w: the Java child: %w (build it with make jvm)", ErrJVMNotBuilt, err)
	}
	cpFile := filepath.Join(dir, JVMClasspathFile(v))
	b, err := os.ReadFile(cpFile)
	if err != nil {
		built := "none"
		if vs := j.Versions(); len(vs) > 0 {
			built = strings.Join(vs, ", ")
		}
		return nil, fmt.Errorf("%w: Kafka %s: no classpath %s (versions built: %s; make jvm KAFKA_VERSIONS=%q builds it)",
			ErrJVMNotBuilt, v, cpFile, built, v)
	}
	cp := strings.TrimSpace(string(b))
	if cp == "" {
		return nil, fmt.Errorf("%w: Kafka %s: %s is empty (rebuild with make jvm)", ErrJVMNotBuilt, v, cpFile)
	}
	heap := j.MaxHeap
	if heap == "" {
		heap = DefaultJVMMaxHeap
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
		extra = strings.Fields(os.Getenv(JVMOptsEnvVar))
	}
	args = append(args, extra...)
	args = append(args, "-cp", jar+string(os.PathListSeparator)+cp, main)
	return append(args, strings.Fields(os.Getenv(JVMChildArgsEnvVar))...), nil
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

// preflight checks, before any model runs, that every kafka-<version> model
// among models can start (see Command); the error wraps ErrJVMNotBuilt.
func (j JVM) preflight(models []string) error {
	var errs []error
	for _, m := range models {
		rn, err := spec.ParseRunName(m, scenarios.ModelNames())
		if err != nil || !rn.JVM() {
			continue // the Go engine's, or reported by the run
		}
		if _, err := j.Command(rn.KafkaVersion, os.TempDir()); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m, err))
		}
	}
	return errors.Join(errs...)
}
