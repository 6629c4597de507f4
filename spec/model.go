package spec

import (
	"fmt"
	"strings"
)

// Fix is one of the three independent fixes to Kafka Streams' RocksDB store
// lifecycle that the models combine. The zero Fix is not a fix.
type Fix uint8

const (
	// FixOffsetsOptions: RocksDBStore builds the offsets column family's
	// ColumnFamilyOptions once per open, in RocksDBStore.openDB, with only
	// setCompressionType(NO_COMPRESSION) and setWriteBufferSize(1 MB), keeps
	// them in the field RocksDBStore.offsetsCfOptions, and closes them in
	// RocksDBStore.close() and in the open-failure cleanup
	// RocksDBStore.closeOptionsAndFilters(). That is Kafka 4.3.1 as its jar
	// reads (docs/kafka-versions.md; 4.3.2 and 4.4.0 the same). Nothing calls
	// setNoBlockCache: the options keep the default block-based table factory
	// with its implicit LRU cache (8 MiB on RocksDB 7.8.3, 32 MiB on rocksdbjni
	// 10.1.3), released with them. The fix is KAFKA-20616, apache/kafka PR
	// #22378 (merged; store the options in offsetsCfOptions and close them on
	// close). KAFKA-20688, apache/kafka PR #22557 ("Fix RocksDB memory leak",
	// merged to trunk 2026-06-15 and cherry-picked to 4.3, before 4.3.1), is the
	// later change to the same options; the form above is read from the 4.3.1
	// jar, not from either PR. Without the fix (4.3.0) the static
	// RocksDBStore.createOffsetsCFOptions() builds fresh options on every open
	// (NO_COMPRESSION, CompactionStyle.LEVEL, a 1 MB write buffer,
	// maxWriteBufferNumber(2), the same implicit cache) and nothing closes them.
	FixOffsetsOptions Fix = iota + 1
	// FixFinally: the accessors release their column-family handles in finally
	// blocks, whatever the close-time status write does:
	// AbstractColumnFamilyAccessor.close() is try { put(status, closed) }
	// finally { offsets.close() }, SingleColumnFamilyAccessor.close() is
	// try { super.close() } finally { data.close() }, and
	// DualColumnFamilyAccessor.close() is try { super.close() } finally
	// { try { old.close() } finally { new.close() } }. Kafka 4.3.1 (KAFKA-20616,
	// PR #22378). Without it (4.3.0) a failed status write skips every release.
	FixFinally
	// FixReadOptions: RocksDBStore releases RocksJava's per-instance
	// RocksDB.defaultReadOptions_ right after db.close(), in RocksDBStore.close()
	// and in the openDB error-cleanup path, so that every store close (a
	// KeyValueSegment's expiry-driven close by AbstractSegments.cleanupExpiredSegments()
	// included) releases it; the physical store shared by a versioned store's
	// LogicalKeyValueSegments releases it only when the whole store closes.
	// Proposed in apache/kafka PR #23085 (opened 2026-08-05, after 4.3.1 shipped;
	// closed without being merged; RocksJava's own fix, facebook/rocksdb PR
	// #15069, is still open): in no Kafka release.
	FixReadOptions
)

// Fixes lists every fix in a fixed order.
func Fixes() []Fix { return []Fix{FixOffsetsOptions, FixFinally, FixReadOptions} }

// String is the fix's name as used in model descriptions: "offsets-options",
// "finally" or "read-options".
func (f Fix) String() string {
	switch f {
	case FixOffsetsOptions:
		return "offsets-options"
	case FixFinally:
		return "finally"
	case FixReadOptions:
		return "read-options"
	}
	return fmt.Sprintf("Fix(%d)", uint8(f))
}

// FixSet is a set of fixes. The zero FixSet is empty.
type FixSet uint8

// NewFixSet returns the set of the given fixes.
func NewFixSet(fixes ...Fix) FixSet {
	var s FixSet
	for _, f := range fixes {
		s |= 1 << f
	}
	return s
}

// Has reports whether f is in the set.
func (s FixSet) Has(f Fix) bool { return f != 0 && s&(1<<f) != 0 }

// List returns the fixes in the set in the order of Fixes.
func (s FixSet) List() []Fix {
	var out []Fix
	for _, f := range Fixes() {
		if s.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// Model is an ownership model: a named set of fixes. Models are values and
// compare with ==.
type Model struct {
	Name  string
	Fixes FixSet
	// Release is the Kafka release whose ownership code the model is
	// ("4.3.0"), the JVM engine's kafka-<Release> model running that
	// release's own jars; empty for a what-if that no release ships. The one
	// place the release labels live (ModelRelease reads them).
	Release string
}

// Has reports whether the model includes fix f.
func (m Model) Has(f Fix) bool { return m.Fixes.Has(f) }

// The named models.
var (
	// Leaky is Kafka 4.3.0: RocksDBStore.createOffsetsCFOptions() returns a new
	// ColumnFamilyOptions nobody closes, AbstractColumnFamilyAccessor.close()
	// releases no handle when its status put throws, and nothing releases
	// RocksDB.defaultReadOptions_. No fix.
	Leaky = Model{Name: "leaky", Release: "4.3.0"}
	// Fixed is exactly what Kafka 4.3.1 ships: FixOffsetsOptions and FixFinally
	// (KAFKA-20616, PR #22378). It leaks RocksDB.defaultReadOptions_ like 4.3.0:
	// the store-side release was proposed in PR #23085 on 2026-08-05 (closed,
	// not merged), after 4.3.1 was released (June 2026). KAFKA-20688 ("Fix RocksDB memory leak",
	// PR #22557, cherry-picked to 4.3 on 2026-06-15, so in 4.3.1) is about the
	// options objects (its review asks to check that the same
	// columnFamilyOptions instance is returned twice), not the read options.
	Fixed = Model{Name: "fixed", Fixes: NewFixSet(FixOffsetsOptions, FixFinally), Release: "4.3.1"}
	// OptionsFix is FixOffsetsOptions alone: the offsets-CF options are owned
	// and closed by RocksDBStore.close(); handles and read options leak as in 4.3.0.
	OptionsFix = Model{Name: "options-fix", Fixes: NewFixSet(FixOffsetsOptions)}
	// FinallyFix is FixFinally alone: the accessors' close() methods release
	// their handles in finally blocks; the offsets options and read options leak
	// as in 4.3.0.
	FinallyFix = Model{Name: "finally-fix", Fixes: NewFixSet(FixFinally)}
	// ReadOptionsFix is FixReadOptions alone: RocksDBStore.close() releases
	// RocksDB.defaultReadOptions_ after db.close(); the offsets options and
	// handles leak as in 4.3.0.
	ReadOptionsFix = Model{Name: "read-options-fix", Fixes: NewFixSet(FixReadOptions)}
	// AllFixes is Kafka 4.3.1 plus the store-side release of
	// RocksDB.defaultReadOptions_ proposed in PR #23085 (closed, not merged: no
	// Kafka release has it): every fix, nothing leaks.
	AllFixes = Model{Name: "all-fixes", Fixes: NewFixSet(FixOffsetsOptions, FixFinally, FixReadOptions)}
)

// Models returns the named models in a fixed order: leaky, fixed, the three
// single fixes, all fixes.
func Models() []Model {
	return []Model{Leaky, Fixed, OptionsFix, FinallyFix, ReadOptionsFix, AllFixes}
}

// ModelRelease is the Kafka release a run name is, exactly as written: a
// model's Release ("leaky" is "4.3.0"), or the version of a kafka-<version>
// name; "" for a what-if, or a name with a suffix.
func ModelRelease(name string) string {
	if v, ok := KafkaVersion(name); ok {
		return v
	}
	for _, m := range Models() {
		if m.Name == name {
			return m.Release
		}
	}
	return ""
}

// ModelNames returns the names of Models, in the same order.
func ModelNames() []string {
	var names []string
	for _, m := range Models() {
		names = append(names, m.Name)
	}
	return names
}

// ParseModel returns the named model, or an error naming the bad value and
// the known names.
func ParseModel(name string) (Model, error) {
	for _, m := range Models() {
		if m.Name == name {
			return m, nil
		}
	}
	return Model{}, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(ModelNames(), ", "))
}

// Semantics says what the DB's close does with column-family handles the
// store's accessor did not release. Debian's RocksDB aborts the process when a
// DB is closed while a handle is alive, so "skip the release, close the DB
// anyway" is not a choice. Under both semantics the DB object creates a
// default read options object per instance (RocksJava's
// RocksDB.defaultReadOptions_, present since RocksJava 8.10.0) that its close
// does not release: the semantics differ only in the safety net.
type Semantics string

const (
	// RocksJava is RocksJava's RocksDB.close() (java/src/main/java/org/rocksdb/RocksDB.java):
	// it first closes every handle in ownedColumnFamilyHandles (the handles
	// RocksDB.open handed out) that is still owned, clears the list, then closes
	// the DB. Handles the accessor skipped are released late, the DB closes.
	// It never releases defaultReadOptions_. The default. The former
	// "safety-net" semantics (the store released skipped handles just before
	// closing the DB) has the same effect and is accepted as an alias.
	RocksJava Semantics = "rocksjava"
	// NoSafetyNet is a binding without RocksJava's safety net (the C and C++
	// API, grocksdb, a RocksJava without ownedColumnFamilyHandles): a handle the
	// accessor skipped pins its DB, which stays open with everything it holds
	// (memtables, table readers, LOCK file, file descriptors). The former "pin"
	// semantics; "pin" is accepted as an alias.
	NoSafetyNet Semantics = "no-safety-net"
)

// SemanticsAll lists the semantics in a fixed order, the default first.
func SemanticsAll() []Semantics { return []Semantics{RocksJava, NoSafetyNet} }

// ParseSemantics validates a semantics name: "" is RocksJava, "safety-net" is
// an alias of RocksJava and "pin" of NoSafetyNet. The error names the bad value
// and the known ones.
func ParseSemantics(s string) (Semantics, error) {
	switch s {
	case "", string(RocksJava), "safety-net":
		return RocksJava, nil
	case string(NoSafetyNet), "pin":
		return NoSafetyNet, nil
	}
	return "", fmt.Errorf("unknown leak semantics %q (known: %s, %s; aliases: safety-net, pin)", s, RocksJava, NoSafetyNet)
}
