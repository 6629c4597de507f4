package results

import (
	"fmt"
	"strings"

	"github.com/rocksleak/rocksleak/schema"
)

// ledgerKindWords says what a ledger kind's objects are (both engines' kinds, lifecycle.Kind and the Java child's
// Ledger), and for a growing kind whose code leaves them.
var ledgerKindWords = map[string]string{
	"options":              "the offsets column family's ColumnFamilyOptions, one per RocksDB open, which Kafka 4.3.0's RocksDBStore never closes (KAFKA-20616)",
	"read_options":         "RocksJava's defaultReadOptions_, one per RocksDB instance, which RocksDB.close() leaves (facebook/rocksdb#15069, open; the kafka-<version>+read-options-fix model closes them)",
	"cf_handle":            "column-family handles not closed",
	"db":                   "RocksDB instances not closed",
	"cache":                "block caches the stores' options hold (a config setter's, built per store and not closed in its close())",
	"filter":               "filter policies the stores' options hold (built per store and not closed)",
	"write_buffer_manager": "write buffer managers the stores' options hold (built per store and not closed)",
	"table_options":        "table options not closed",
	"write_options":        "write options not closed",
	"flush_options":        "flush options not closed",
	"write_batch":          "write batches not closed",
	"iterator":             "iterators left open (KIP-989's num-open-iterators)",
	"synthetic":            "the scenario's synthetic leak",
}

// ledgerGrowthWords is a run's growing ledger kinds in one line: each kind's live objects per lifecycle, its live
// count at the end, and what the objects are; "" when no kind grows.
func ledgerGrowthWords(run *schema.Run) string {
	if run == nil || len(run.LedgerGrowth) == 0 {
		return ""
	}
	parts := make([]string, len(run.LedgerGrowth))
	for i, g := range run.LedgerGrowth {
		parts[i] = fmt.Sprintf("%s +%.2f per lifecycle, %d live at the end", g.Kind, g.PerLifecycle, g.LiveAtEnd)
		if w, ok := ledgerKindWords[g.Kind]; ok {
			parts[i] += " (" + w + ")"
		}
	}
	return strings.Join(parts, "; ")
}
