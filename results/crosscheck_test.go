package results

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/engine/jvm/kafkaversions"
	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
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

// TestReleaseLabelsComeFromTheModels: the cross-check's pairs are the
// models' release labels (spec.Model.Release) beside their jars, and every
// release a model names is a row of the Kafka versions table the JVM engine
// builds from (engine/jvm/kafkaversions/versions.tsv): adding a model with a
// release, or changing one, is checked against the table.
func TestReleaseLabelsComeFromTheModels(t *testing.T) {
	assert.Equal(t, []CrossPair{
		{Label: "4.3.0 (leaky)", Go: "leaky", JVM: "kafka-4.3.0"},
		{Label: "4.3.1 (fixed)", Go: "fixed", JVM: "kafka-4.3.1"},
	}, CrossPairs)
	for _, m := range spec.Models() {
		if m.Release == "" {
			continue
		}
		_, ok := kafkaversions.Lookup(m.Release)
		assert.True(t, ok, "model %s's release %s is not in engine/jvm/kafkaversions/versions.tsv", m.Name, m.Release)
	}
	assert.True(t, fixPair("leaky", "fixed"))
	assert.True(t, fixPair("kafka-4.3.0", "kafka-4.3.1"))
	assert.False(t, fixPair("leaky", "kafka-4.3.1"), "across engines")
	assert.False(t, fixPair("fixed", "leaky"), "the wrong way round")
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
