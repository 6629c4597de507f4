package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/internal/golden"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/spec"
	"github.com/rocksleak/rocksleak/userapp"
	"github.com/rocksleak/rocksleak/workload"
)

// The child protocol's golden files, written here (go test ./harness -run
// TestProtocolGoldens -update) and read by the Java child's JUnit tests
// (engine/jvm/child: ProtocolTest), as workload/testdata/values.json is: a
// job with every field set, one op of every kind with every field it has, a
// sample event with every field set, and the summary's restore object with
// every field set. A field added to the job, the op stream, the sample or the
// restore on one side only fails one of the two.
const (
	protocolJob     = "testdata/protocol/job.json"
	protocolOps     = "testdata/protocol/ops.jsonl"
	protocolSample  = "testdata/protocol/sample.jsonl"
	protocolRestore = "testdata/protocol/restore.json"
)

// protocolRestoreValue is a summary's restore object with every field set.
func protocolRestoreValue() schema.RestoreStats {
	return schema.RestoreStats{Count: 2, P50Ns: 3, P50LowNs: 4, P50HighNs: 5, MaxNs: 6, DurationsNs: []int64{7, 8},
		RecordsEach: []int64{9, 10}, Records: 19, SegmentLifecycles: 11}
}

// protocolJobValue is a job that sets every field (omitempty ones too) to a
// value a child accepts: the default scenario with its zero fields set.
func protocolJobValue(t *testing.T) Job {
	t.Helper()
	sc, err := scenarios.Get("kafka-20616")
	require.NoError(t, err)
	for _, kv := range []string{"segment_interval_ms=60000", "synthetic_leak_bytes=256", "duration=0s", "read_back=true"} {
		require.NoError(t, sc.Set(kv))
	}
	return Job{Scenario: sc, Model: "kafka-4.3.0+read-options-fix+synthetic@jemalloc",
		RunName: spec.RunName{Model: "kafka-4.3.0", Synthetic: true, ReadOptionsFix: true,
			Allocator: spec.AllocatorJemalloc, KafkaVersion: "4.3.0"},
		Seed: 20616, StateDir: "/state/rocksleak-kafka-4.3.0-1", Ops: workload.OpsVersion,
		ChangelogDir: "/state/rocksleak-kafka-4.3.0-changelog-1",
		Profile:      &ProfileJob{Dir: "/profile", WarmLifecycles: 300, WarmAfterNs: int64(time.Minute), Every: 100, IntervalBytes: 32768},
		DiskFull:     &DiskFullJob{Attempts: 3},
		App: &userapp.Job{Class: "com.example.App", Classpath: []string{"/app/app.jar"}, Properties: "/app/app.properties",
			StepsPerLifecycle: 20, StreamTimePerStepMs: 60000, WallClockPerStepMs: 10000, HangAfterMs: 60000, MaxRSS: 1 << 30}}
}

// protocolOpsValue is one op of every kind, each field it carries non-zero.
func protocolOpsValue() []workload.Op {
	var ops []workload.Op
	for _, k := range workload.Kinds() {
		ops = append(ops, workload.Op{Kind: k, Step: 7, StreamTime: 140000, Task: 2, Store: 1, Key: "key-0042",
			Ts: 139000, Ver: 9, InitFailures: 1, Fault: spec.FaultTransient, Tasks: []int{0, 3}})
	}
	return ops
}

func TestProtocolGoldens(t *testing.T) {
	job, err := json.Marshal(protocolJobValue(t))
	require.NoError(t, err)
	golden.Check(t, protocolJob, append(job, '\n'))

	var ops []byte
	for _, op := range protocolOpsValue() {
		ops = op.AppendJSON(ops)
	}
	golden.Check(t, protocolOps, ops)

	var sample bytes.Buffer
	s := filled(t)
	require.NoError(t, NewEventWriter(&sample).WriteSample(&s))
	golden.Check(t, protocolSample, sample.Bytes())

	rs := protocolRestoreValue()
	v := reflect.ValueOf(rs)
	for i := range v.NumField() {
		require.False(t, v.Field(i).IsZero(), "protocolRestoreValue sets %s", v.Type().Field(i).Name)
	}
	restore, err := json.Marshal(rs)
	require.NoError(t, err)
	golden.Check(t, protocolRestore, append(restore, '\n'))
}

// TestProtocolJobGoldenSetsEveryField: the job golden has a key for every
// JSON field of Job (the embedded run name's included) and of its scenario,
// so a field added in Go, even one left out when empty, reaches the file the
// Java child's test reads.
func TestProtocolJobGoldenSetsEveryField(t *testing.T) {
	b, err := os.ReadFile(protocolJob)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Equal(t, jsonKeys(reflect.TypeFor[Job]()), sortedKeys(m), "run go test ./harness -run TestProtocolGoldens -update after setting the new field in protocolJobValue")
	var sc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(m["scenario"], &sc))
	assert.Equal(t, jsonKeys(reflect.TypeFor[scenarios.Scenario]()), sortedKeys(sc))
}

// jsonKeys lists t's JSON keys, embedded structs' flattened, sorted.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && name == "":
			keys = append(keys, jsonKeys(f.Type)...)
		case name != "-" && f.IsExported():
			keys = append(keys, name)
		}
	}
	slices.Sort(keys)
	return keys
}

func sortedKeys(m map[string]json.RawMessage) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
