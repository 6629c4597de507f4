package lifecycle_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/lifecycle"
)

// TestStoreOpensWithKafkaOpenDBOptions reads back the OPTIONS file RocksDB
// writes at open: the data CF and the DB carry the settings of Kafka 4.3's
// RocksDBStore.openDB (universal compaction, optimizeFiltersForHits, 4 KB
// blocks, a Bloom filter, 16 MB × 3 write buffers, no compression, atomic
// flush, increaseParallelism(max(cores, 2)), info log level ERROR).
func TestStoreOpensWithKafkaOpenDBOptions(t *testing.T) {
	dir := t.TempDir()
	env := lifecycle.NewEnv(nil)
	s, err := lifecycle.Open(env, lifecycle.Config{Path: dir, Model: lifecycle.AllFixes})
	require.NoError(t, err)
	require.NoError(t, s.Close())

	matches, err := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	require.NoError(t, err)
	require.NotEmpty(t, matches)
	b, err := os.ReadFile(matches[len(matches)-1])
	require.NoError(t, err)
	sections := optionSections(string(b))

	db := sections["DBOptions"]
	assert.Equal(t, "true", db["atomic_flush"])
	assert.Equal(t, "ERROR_LEVEL", db["info_log_level"])
	assert.Equal(t, fmt.Sprint(max(runtime.NumCPU(), 2)), db["max_background_jobs"], "increaseParallelism(max(cores, 2))")

	data := sections[`CFOptions "default"`]
	assert.Equal(t, "kCompactionStyleUniversal", data["compaction_style"])
	assert.Equal(t, "true", data["optimize_filters_for_hits"])
	assert.Equal(t, "16777216", data["write_buffer_size"])
	assert.Equal(t, "3", data["max_write_buffer_number"])
	assert.Equal(t, "kNoCompression", data["compression"])
	table := sections[`TableOptions/BlockBasedTable "default"`]
	assert.Equal(t, "4096", table["block_size"])
	assert.Contains(t, table["filter_policy"], "bloomfilter")

	off := sections[`CFOptions "offsets"`]
	assert.Equal(t, "1048576", off["write_buffer_size"], "the offsets CF keeps its own 1 MB write buffers")
	assert.Equal(t, "kCompactionStyleLevel", off["compaction_style"], "createOffsetsCFOptions sets LEVEL")
}

// optionSections parses RocksDB's OPTIONS file: [section] headers, key=value lines.
func optionSections(text string) map[string]map[string]string {
	out := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			cur = map[string]string{}
			out[strings.Trim(line, "[]")] = cur
		case cur != nil && strings.Contains(line, "="):
			k, v, _ := strings.Cut(line, "=")
			cur[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}
