package results

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// The cross-check document's generated part is replaced whole, the text
// around it kept, the run's --out left out of the command it quotes; a
// document without both markers in order is not one to write into.
func TestCrosscheckDoc(t *testing.T) {
	doc := []byte("# Cross-check\n\nbefore\n" + CrossBegin + "\nold table\n" + CrossEnd + "\nafter\n")
	require.True(t, HasCrosscheckMarkers(doc))
	assert.False(t, HasCrosscheckMarkers([]byte("# no markers\n")))
	assert.False(t, HasCrosscheckMarkers([]byte(CrossEnd+"\n"+CrossBegin+"\n")), "end before begin")

	r := versionsResult()
	r.Provenance.Command = "rocksleak run --models leaky,kafka-4.3.0 --lifecycles 1500 --out runs/x"
	r.Provenance.StartTime, r.Provenance.GitCommit = "2026-12-06T07:00:00Z", "abc123"
	got := string(CrosscheckDoc(doc, r, "| new | table |\n"))
	assert.Equal(t, "# Cross-check\n\nbefore\n"+CrossBegin+"\n\nMeasured 2026-12-06 at commit abc123 by "+
		"`rocksleak run --models leaky,kafka-4.3.0 --lifecycles 1500` (models run one after the other, one seed).\n\n"+
		"| new | table |\n"+CrossEnd+"\nafter\n", got)
}
