package results

import (
	"path/filepath"
	"testing"

	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/schema"
)

// TestCrosscheckGolden: the four columns in pair order, a missing model as "not run", the native-heap controlled
// verdicts under the table.
func TestCrosscheckGolden(t *testing.T) {
	r := versionsResult()
	r.Models = []string{"leaky", "kafka-4.3.0", "kafka-4.3.1"}
	r.Runs["leaky"].RocksDBVersion = "7.8.3"
	r.Runs["leaky"].Resident = &schema.Resident{NativeHeapPerDB: 742 << 10, RSSPerDB: 676 << 10, OpenDBs: 10}
	golden.Check(t, filepath.Join("testdata", "crosscheck.md"), []byte(CrosscheckMarkdown(r, nil)))
}
