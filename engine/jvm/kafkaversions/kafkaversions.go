// Package kafkaversions reads the table of Kafka Streams versions rocksleak knows (versions.tsv, embedded): each
// release's kafka-streams Maven coordinates, the rocksdbjni version its pom names, and what its jar's bytecode shows
// about the offsets column family (KIP-1035) and its release on close. The table is data, checked against Maven
// Central's poms and jars by `make kafka-versions` (engine/jvm/kafkatests/kafka-versions.sh); this package only parses it.
// It is pure Go: no cgo, no JVM, no network.
package kafkaversions

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

//go:embed versions.tsv
var tableTSV string

// Columns is the table's header, in order.
var Columns = []string{
	"kafka_version", "streams_artifact", "rocksdbjni", "offsets_cf", "offsets_options", "offsets_setters",
	"offsets_no_block_cache", "accessor_close_finally", "restore_batch_close",
}

// OffsetsOptions says how a release builds and releases the offsets column family's ColumnFamilyOptions.
type OffsetsOptions string

const (
	// OffsetsNone: the release has no offsets column family.
	OffsetsNone OffsetsOptions = "none"
	// OffsetsPerOpenUnclosed: each open builds new options and nothing closes them (KAFKA-20616 leak 1, 4.3.0).
	OffsetsPerOpenUnclosed OffsetsOptions = "per-open-unclosed"
	// OffsetsFieldClosed: the options are kept in a field and closed in close() and the open-failure cleanup.
	OffsetsFieldClosed OffsetsOptions = "field-closed"
)

// Tri is a yes/no reading that does not apply ("n/a") to a release without the offsets column family.
type Tri string

const (
	Yes Tri = "yes"
	No  Tri = "no"
	NA  Tri = "n/a"
)

// Version is one row of the table.
type Version struct {
	Kafka           string         // "4.3.1"
	StreamsArtifact string         // "org.apache.kafka:kafka-streams:4.3.1"
	RocksDBJNI      string         // "10.1.3": the org.rocksdb:rocksdbjni version the kafka-streams pom names
	OffsetsCF       bool           // RocksDBStore opens an "offsets" column family
	OffsetsOptions  OffsetsOptions // how the offsets CF's options are built and released
	OffsetsSetters  []string       // the ColumnFamilyOptions setters applied to them (nil when n/a)
	NoBlockCache    Tri            // RocksDBStore calls BlockBasedTableConfig.setNoBlockCache
	AccessorFinally Tri            // every accessor close(DBAccessor) releases its handles in a finally
	// RestoreBatchClose is how the segmented stores' restoreAllInternal releases its WriteBatches:
	// "success-path-only" (a failed Segment.write leaks that batch and the rest of the map) or "other".
	RestoreBatchClose string
}

// LeaksRestoreBatchesOnWriteFailure reports the restore-path leak (docs/restore-leak.md) for this release.
func (v Version) LeaksRestoreBatchesOnWriteFailure() bool {
	return v.RestoreBatchClose == "success-path-only"
}

// LeaksOffsetsOptions reports KAFKA-20616's leak 1 (offsets CF options never closed) for this release.
func (v Version) LeaksOffsetsOptions() bool { return v.OffsetsOptions == OffsetsPerOpenUnclosed }

// SkipsHandleClose reports KAFKA-20616's leak 2 (a failed close-time status put skips the handle closes).
func (v Version) SkipsHandleClose() bool { return v.AccessorFinally == No }

// ModelName is the JVM engine's name for the release, "kafka-<version>".
func (v Version) ModelName() string { return "kafka-" + v.Kafka }

// All returns the embedded table's rows, in the table's order (ascending versions). It panics if the embedded table
// is malformed, which TestEmbeddedTable rules out.
func All() []Version {
	vs, err := Parse(tableTSV)
	if err != nil {
		panic("kafkaversions: embedded versions.tsv: " + err.Error())
	}
	return vs
}

// Lookup returns the row for a Kafka version such as "4.3.0".
func Lookup(kafka string) (Version, bool) {
	for _, v := range All() {
		if v.Kafka == kafka {
			return v, true
		}
	}
	return Version{}, false
}

var (
	versionRE  = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)
	setterRE   = regexp.MustCompile(`^set[A-Z][A-Za-z]*$`)
	validTri   = map[Tri]bool{Yes: true, No: true, NA: true}
	validOpts  = map[OffsetsOptions]bool{OffsetsNone: true, OffsetsPerOpenUnclosed: true, OffsetsFieldClosed: true}
	rocksdbjRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)
)

// Parse reads a table in versions.tsv's format: '#' comment lines and blank lines are skipped; the first other line
// is the header (exactly Columns, tab-separated); each further line is one version. Errors name the line and column.
// Rows must be in strictly ascending version order, and the readings must agree with each other (a release without
// the offsets CF has "none" and "n/a"; one with it has neither).
func Parse(tsv string) ([]Version, error) {
	var out []Version
	header := false
	for i, line := range strings.Split(tsv, "\n") {
		n := i + 1
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(line, "\t")
		if !header {
			if strings.Join(cells, "\t") != strings.Join(Columns, "\t") {
				return nil, fmt.Errorf("line %d: header must be %q", n, strings.Join(Columns, " "))
			}
			header = true
			continue
		}
		if len(cells) != len(Columns) {
			return nil, fmt.Errorf("line %d: %d cells, want %d", n, len(cells), len(Columns))
		}
		v, err := parseRow(cells)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(out) > 0 && !less(out[len(out)-1].Kafka, v.Kafka) {
			return nil, fmt.Errorf("line %d: kafka_version %s does not follow %s in ascending order", n, v.Kafka, out[len(out)-1].Kafka)
		}
		out = append(out, v)
	}
	if !header {
		return nil, fmt.Errorf("no header line")
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rows")
	}
	return out, nil
}

func parseRow(c []string) (Version, error) {
	v := Version{Kafka: c[0], StreamsArtifact: c[1], RocksDBJNI: c[2],
		OffsetsOptions: OffsetsOptions(c[4]), NoBlockCache: Tri(c[6]), AccessorFinally: Tri(c[7]), RestoreBatchClose: c[8]}
	if !versionRE.MatchString(v.Kafka) {
		return v, fmt.Errorf("kafka_version %q: want major.minor.patch", c[0])
	}
	if want := "org.apache.kafka:kafka-streams:" + v.Kafka; v.StreamsArtifact != want {
		return v, fmt.Errorf("kafka_version %s: streams_artifact %q, want %q", v.Kafka, c[1], want)
	}
	if !rocksdbjRE.MatchString(v.RocksDBJNI) {
		return v, fmt.Errorf("kafka_version %s: rocksdbjni %q: want major.minor.patch", v.Kafka, c[2])
	}
	switch c[3] {
	case "yes":
		v.OffsetsCF = true
	case "no":
	default:
		return v, fmt.Errorf("kafka_version %s: offsets_cf %q: want yes or no", v.Kafka, c[3])
	}
	if !validOpts[v.OffsetsOptions] {
		return v, fmt.Errorf("kafka_version %s: offsets_options %q: want none, per-open-unclosed or field-closed", v.Kafka, c[4])
	}
	for col, t := range map[string]Tri{"offsets_no_block_cache": v.NoBlockCache, "accessor_close_finally": v.AccessorFinally} {
		if !validTri[t] {
			return v, fmt.Errorf("kafka_version %s: %s %q: want yes, no or n/a", v.Kafka, col, t)
		}
	}
	if v.RestoreBatchClose != "success-path-only" && v.RestoreBatchClose != "other" {
		return v, fmt.Errorf("kafka_version %s: restore_batch_close %q: want success-path-only or other", v.Kafka, c[8])
	}
	if c[5] != "n/a" {
		for _, s := range strings.Split(c[5], ",") {
			if !setterRE.MatchString(s) {
				return v, fmt.Errorf("kafka_version %s: offsets_setters %q: want comma-separated setter names or n/a", v.Kafka, c[5])
			}
			v.OffsetsSetters = append(v.OffsetsSetters, s)
		}
	}
	// The readings must agree: without the offsets CF nothing about it applies; with it, everything does.
	if !v.OffsetsCF {
		if v.OffsetsOptions != OffsetsNone || v.OffsetsSetters != nil || v.NoBlockCache != NA || v.AccessorFinally != NA {
			return v, fmt.Errorf("kafka_version %s: offsets_cf no, but the offsets columns are not none/n/a", v.Kafka)
		}
	} else if v.OffsetsOptions == OffsetsNone || v.NoBlockCache == NA || v.AccessorFinally == NA || v.OffsetsSetters == nil {
		return v, fmt.Errorf("kafka_version %s: offsets_cf yes, but an offsets column says none or n/a", v.Kafka)
	}
	return v, nil
}

// less orders major.minor.patch versions numerically.
func less(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range pa {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return false
}
