package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/spec"
)

// TestCatalogueShapes checks that each catalogue scenario has the shape its
// purpose needs.
func TestCatalogueShapes(t *testing.T) {
	d := getScenario(t, "kafka-20616")
	checkDefaultShape(t, d)
	checkFaultShapes(t)
	checkLeakSemantics(t, d)
	checkSizeShapes(t)
}

// getScenario is Get(name), failing the test on an error.
func getScenario(t *testing.T, name string) Scenario {
	t.Helper()
	s, err := Get(name)
	require.NoError(t, err)
	return s
}

// checkDefaultShape checks the default scenario d (kafka-20616): windowed,
// exactly-once, transient close failures, on RocksJava, leaky against fixed.
func checkDefaultShape(t *testing.T, d Scenario) {
	assert.Equal(t, StoreWindow, d.Store)
	assert.Equal(t, 3, d.LiveSegments())
	assert.Equal(t, int64(60000), d.SegmentInterval())
	assert.True(t, d.ExactlyOnce)
	assert.Equal(t, 0.05, d.CloseFailureRate)
	assert.Equal(t, spec.FaultTransient, d.CloseFailureKind)
	assert.Equal(t, SemanticsRocksJava, d.LeakSemantics, "the default scenario runs as Kafka does: on RocksJava")
	assert.Equal(t, 4, d.ChangelogPartitions)
	assert.Equal(t, []string{"leaky", "fixed"}, d.Models)
	assert.Positive(t, d.RebalanceEverySteps)
}

// checkFaultShapes checks the scenarios built around failures and
// measurement: eos-v2-cascade, migrating-store, restore-peak, calibration,
// kv-clean and attribution.
func checkFaultShapes(t *testing.T) {
	all := []string{"leaky", "fixed", "options-fix", "finally-fix"}

	c := getScenario(t, "eos-v2-cascade")
	assert.True(t, c.Cascade)
	assert.Equal(t, spec.FaultSticky, c.CloseFailureKind)
	assert.Equal(t, all, c.Models)

	m := getScenario(t, "migrating-store")
	assert.Equal(t, StoreMigrating, m.Store)
	assert.Positive(t, m.CloseFailureRate)
	assert.Equal(t, all, m.Models)

	r := getScenario(t, "restore-peak")
	assert.Equal(t, []string{"fixed"}, r.Models)
	assert.True(t, r.ExactlyOnce)
	assert.Positive(t, r.CloseFailureRate)
	assert.Positive(t, r.RebalanceEverySteps)
	assert.GreaterOrEqual(t, r.RestoreScratchBytes, 8<<20)

	cal := getScenario(t, "calibration")
	assert.Equal(t, []string{"fixed", "fixed" + spec.SyntheticSuffix}, cal.Models, "the synthetic leak is measured against a control run")
	assert.Equal(t, StoreKV, cal.Store)
	assert.Zero(t, cal.CloseFailureRate)
	assert.Zero(t, cal.InitFailureRate)
	assert.Positive(t, cal.SyntheticLeakBytes)

	kv := getScenario(t, "kv-clean")
	assert.Equal(t, StoreKV, kv.Store)
	assert.Zero(t, kv.CloseFailureRate)
	assert.Zero(t, kv.InitFailureRate)
	assert.Equal(t, []string{"leaky", "fixed"}, kv.Models)

	a := getScenario(t, "attribution")
	assert.Equal(t, StoreWindow, a.Store)
	assert.Equal(t, 0.1, a.CloseFailureRate)
	assert.Equal(t, ModelNames(), a.Models, "attribution runs all six models")
}

// checkLeakSemantics checks that every scenario but no-safety-net runs under
// RocksJava's close, and that no-safety-net is the default d with only the
// semantics changed.
func checkLeakSemantics(t *testing.T, d Scenario) {
	for _, name := range Names() {
		if name != "no-safety-net" {
			assert.Equal(t, SemanticsRocksJava, getScenario(t, name).LeakSemantics, "%s runs under RocksJava's close", name)
		}
	}
	sn := getScenario(t, "no-safety-net")
	assert.Equal(t, SemanticsNoSafetyNet, sn.LeakSemantics)
	sn.LeakSemantics = SemanticsRocksJava
	sn.Name, sn.Description = d.Name, d.Description
	assert.Equal(t, d, sn, "no-safety-net is the default with only the semantics changed")
}

// checkSizeShapes checks the scenarios about sizes and memory: restore-churn,
// bounded-memory, smoke and scale.
func checkSizeShapes(t *testing.T) {
	rc := getScenario(t, "restore-churn")
	assert.Equal(t, StoreWindow, rc.Store)
	assert.True(t, rc.ExactlyOnce, "the wipe and full restore follow exactly-once corruption")
	assert.Positive(t, rc.CloseFailureRate)
	assert.Equal(t, int64(DefaultAdditionalRetentionMs), rc.AdditionalRetentionMs)
	assert.Less(t, int64(rc.RestoreBatchRecords)*rc.StepMs/int64(rc.RecordsPerStep), rc.RetentionMs,
		"a restore batch spans less than the retention, so the restore creates and expires each segment")

	bm := getScenario(t, "bounded-memory")
	assert.Positive(t, bm.BoundedCacheBytes)
	assert.Positive(t, bm.BoundedWriteBufferBytes)
	assert.Contains(t, bm.Description, "strictCapacityLimit false")
	for _, name := range Names() {
		if name != "bounded-memory" {
			assert.Zero(t, getScenario(t, name).BoundedCacheBytes, "%s runs with Kafka's defaults", name)
		}
	}

	sm := getScenario(t, "smoke")
	assert.LessOrEqual(t, sm.Lifecycles, 100)
	assert.Zero(t, sm.Duration)

	sc := getScenario(t, "scale")
	assert.Equal(t, 64, sc.Tasks)
	assert.Equal(t, 1, sc.StoresPerTask)
	assert.Equal(t, 32, sc.LiveSegments())
	assert.Equal(t, 31*sc.SegmentInterval(), sc.RetentionMs)
	assert.Equal(t, 2048, sc.Tasks*sc.StoresPerTask*sc.LiveSegments(), "the goal: 2,048 live segments")
	assert.Contains(t, sc.Description, "about 8 file descriptors")
	assert.Contains(t, sc.Description, "2,048 RocksDB instances")
}
