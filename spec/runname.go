package spec

import (
	"fmt"
	"slices"
	"strings"
)

// SyntheticSuffix marks a run of a model with the scenario's synthetic leak
// added ("fixed+synthetic"), for calibration against its control (the same
// model without the suffix).
const SyntheticSuffix = "+synthetic"

// ReadOptionsFixSuffix marks a JVM engine run of a Kafka version with
// RocksJava's read-options fix applied ("kafka-4.3.1+read-options-fix"):
// every RocksDB object's defaultReadOptions_ is closed right after Kafka
// closes the DB, as facebook/rocksdb#15069 (open, not in any rocksdbjni
// release) makes RocksDB.close() do. Its control is the same version
// without the suffix. The Go engine spells the same fix as its
// read-options-fix model instead.
const ReadOptionsFixSuffix = "+read-options-fix"

// RunName is one entry of a scenario's models list, parsed: an ownership
// model of the Go engine or a Kafka version the JVM engine runs
// ("kafka-4.3.0"), optionally with the scenario's synthetic leak
// ("fixed+synthetic"), optionally under a named allocator ("leaky@jemalloc";
// glibc when absent). Each entry is one child process and one set of results.
//
// It is parsed once, where a name enters the run half (harness.Run), and
// travels parsed in the child's job (harness.Job embeds it: these JSON keys).
type RunName struct {
	// Model is one of the known models given to ParseRunName, or
	// "kafka-<version>": the name without its suffixes.
	Model     string `json:"base_model"`
	Synthetic bool   `json:"synthetic,omitempty"`
	// ReadOptionsFix is a JVM run with RocksJava's read-options fix
	// (ReadOptionsFixSuffix); never set for the Go engine's models.
	ReadOptionsFix bool      `json:"read_options_fix,omitempty"`
	Allocator      Allocator `json:"allocator,omitempty"`
	// KafkaVersion is the version a "kafka-<version>" model runs (see
	// KafkaVersion); empty for the Go engine's models.
	KafkaVersion string `json:"kafka_version,omitempty"`
}

// JVM reports whether the JVM engine runs n (a "kafka-<version>" model).
func (n RunName) JVM() bool { return n.KafkaVersion != "" }

// String renders n as ParseRunName reads it: the allocator is written only
// when it is not glibc.
func (n RunName) String() string {
	s := n.Model
	if n.ReadOptionsFix {
		s += ReadOptionsFixSuffix
	}
	if n.Synthetic {
		s += SyntheticSuffix
	}
	if n.Allocator != "" && n.Allocator != AllocatorGlibc {
		s += "@" + string(n.Allocator)
	}
	return s
}

// ParseRunName parses "<model>[+read-options-fix][+synthetic][@glibc|@jemalloc]",
// where model is one of models or "kafka-<version>" (see KafkaVersion), and
// +read-options-fix is for a kafka-<version> model only. The error names the
// bad value and the known ones.
func ParseRunName(name string, models []string) (RunName, error) {
	rn := RunName{Allocator: AllocatorGlibc}
	rest := name
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		a, err := ParseAllocator(rest[i+1:])
		if err != nil {
			return rn, fmt.Errorf("%q: allocator %w", name, err)
		}
		rn.Allocator, rest = a, rest[:i]
	}
	rest, rn.Synthetic = strings.CutSuffix(rest, SyntheticSuffix)
	rest, rn.ReadOptionsFix = strings.CutSuffix(rest, ReadOptionsFixSuffix)
	v, kafka := KafkaVersion(rest)
	if rn.ReadOptionsFix && !kafka {
		return rn, fmt.Errorf("%q: %q is for the JVM engine's %s<version> models (the Go engine's model with that fix is read-options-fix)",
			name, ReadOptionsFixSuffix, KafkaPrefix)
	}
	if !kafka && !slices.Contains(models, rest) {
		return rn, fmt.Errorf("%q is not a model (known: %s, or %s<version> such as %s4.3.0; each optionally with %q and @%s or @%s)",
			name, strings.Join(models, ", "), KafkaPrefix, KafkaPrefix, SyntheticSuffix, AllocatorGlibc, AllocatorJemalloc)
	}
	rn.Model, rn.KafkaVersion = rest, v
	return rn, nil
}
