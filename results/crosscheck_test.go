package results

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/schema"
)

func TestFDsPerOpenDB(t *testing.T) {
	var ss []schema.Sample
	for i := 0; i < 8; i++ {
		var s schema.Sample
		s.FDs = 20 + 8*i
		s.RocksDB.OpenDBs = i
		ss = append(ss, s)
	}
	assert.InDelta(t, 8.0, FDsPerOpenDB(ss), 1e-9, "8 FDs more per open DB over the first sample")
	assert.True(t, math.IsNaN(FDsPerOpenDB(ss[:3])), "too few samples")
}

// TestCrosscheckGolden: the four columns in pair order, a missing model as "not run", the native-heap controlled
// verdicts under the table.
func TestCrosscheckGolden(t *testing.T) {
	r := versionsResult()
	r.Models = []string{"leaky", "kafka-4.3.0", "kafka-4.3.1"}
	r.Runs["leaky"].RocksDBVersion = "7.8.3"
	r.Runs["leaky"].Resident = &schema.Resident{NativeHeapPerDB: 742 << 10, RSSPerDB: 676 << 10, OpenDBs: 10}
	golden.Check(t, filepath.Join("testdata", "crosscheck.md"), []byte(CrosscheckMarkdown(r, nil)))
}
