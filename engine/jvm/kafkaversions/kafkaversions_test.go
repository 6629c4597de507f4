package kafkaversions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedTable: the shipped table parses, and holds the facts the rest of rocksleak leans on. The facts come
// from the jars (make kafka-versions checks every cell); this test guards the file's form and its key rows.
func TestEmbeddedTable(t *testing.T) {
	vs, err := Parse(tableTSV)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) < 2 {
		t.Fatalf("%d rows", len(vs))
	}
	first := -1
	for i, v := range vs {
		if v.OffsetsCF && first < 0 {
			first = i
		}
		if first >= 0 && !v.OffsetsCF {
			t.Errorf("%s: no offsets CF after %s had one", v.Kafka, vs[first].Kafka)
		}
	}
	if first < 1 {
		t.Fatalf("the table must start at a release before the offsets CF (first with it: index %d)", first)
	}
	if !strings.HasPrefix(vs[len(vs)-1].Kafka, "4.4.") {
		t.Errorf("the table must reach 4.4.x, ends at %s", vs[len(vs)-1].Kafka)
	}
	v430, ok := Lookup("4.3.0")
	if !ok || !v430.LeaksOffsetsOptions() || !v430.SkipsHandleClose() || !v430.LeaksRestoreBatchesOnWriteFailure() {
		t.Errorf("4.3.0 = %+v, want both KAFKA-20616 leaks and the restore-path one", v430)
	}
	v431, ok := Lookup("4.3.1")
	if !ok || v431.LeaksOffsetsOptions() || v431.SkipsHandleClose() || v431.ModelName() != "kafka-4.3.1" {
		t.Errorf("4.3.1 = %+v, want neither leak", v431)
	}
}

const header = "kafka_version\tstreams_artifact\trocksdbjni\toffsets_cf\toffsets_options\toffsets_setters\toffsets_no_block_cache\taccessor_close_finally\trestore_batch_close\n"

func TestParseRejects(t *testing.T) {
	row := func(cells ...string) string { return strings.Join(cells, "\t") + "\n" }
	good430 := row("4.3.0", "org.apache.kafka:kafka-streams:4.3.0", "10.1.3", "yes", "per-open-unclosed", "setCompressionType", "no", "no", "success-path-only")
	good422 := row("4.2.2", "org.apache.kafka:kafka-streams:4.2.2", "10.1.3", "no", "none", "n/a", "n/a", "n/a", "success-path-only")
	if _, err := Parse("# comment\n" + header + good422 + good430); err != nil {
		t.Fatalf("good table: %v", err)
	}
	for _, tc := range []struct{ name, tsv, want string }{
		{"no header", good430, "header"},
		{"empty", header, "no rows"},
		{"short row", header + "4.3.0\tx\n", "2 cells"},
		{"bad version", header + strings.Replace(good430, "4.3.0\t", "4.3\t", 1), "kafka_version \"4.3\""},
		{"artifact mismatch", header + strings.Replace(good430, "streams:4.3.0", "streams:4.3.1", 1), "streams_artifact"},
		{"bad rocksdbjni", header + strings.Replace(good430, "10.1.3", "latest", 1), "rocksdbjni"},
		{"bad offsets_cf", header + strings.Replace(good430, "\tyes\t", "\tmaybe\t", 1), "offsets_cf"},
		{"bad options", header + strings.Replace(good430, "per-open-unclosed", "leaky", 1), "offsets_options"},
		{"bad tri", header + strings.Replace(good430, "\tno\tno\t", "\tno\tsometimes\t", 1), "accessor_close_finally"},
		{"bad restore", header + strings.Replace(good430, "success-path-only", "leaky", 1), "restore_batch_close"},
		{"bad setter", header + strings.Replace(good430, "setCompressionType", "compression", 1), "offsets_setters"},
		{"inconsistent no-CF row", header + strings.Replace(good422, "\tnone\t", "\tfield-closed\t", 1), "offsets_cf no"},
		{"inconsistent CF row", header + strings.Replace(good430, "\tno\tno\t", "\tn/a\tno\t", 1), "offsets_cf yes"},
		{"descending", header + good430 + good422, "ascending"},
		{"duplicate", header + good430 + good430, "ascending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.tsv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{{"4.2.2", "4.3.0", true}, {"4.3.0", "4.2.2", false}, {"4.3.0", "4.3.0", false}, {"4.3.9", "4.3.10", true}, {"4.10.0", "4.9.0", false}} {
		if got := less(tc.a, tc.b); got != tc.want {
			t.Errorf("less(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

// TestMakefileVersionsAreTableRows: every version make jvm builds by default
// (the Makefile's KAFKA_VERSIONS) is a row of versions.tsv: docs/developing.md's
// "How to add a Kafka version" names both places, and this holds them together.
func TestMakefileVersionsAreTableRows(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "KAFKA_VERSIONS ?="); ok {
			versions = strings.Fields(rest)
		}
	}
	if len(versions) == 0 {
		t.Fatal("the Makefile has no KAFKA_VERSIONS ?= line")
	}
	for _, v := range versions {
		if _, ok := Lookup(v); !ok {
			t.Errorf("KAFKA_VERSIONS names %s, which versions.tsv has no row for", v)
		}
	}
}
