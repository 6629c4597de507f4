package harness

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// jsonLine is what encoding/json's Encoder writes for e: the wire format the
// parent reads.
func jsonLine(t *testing.T, e Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(e))
	return buf.Bytes()
}

// filled returns a Sample with every field (those of the embedded and nested
// structs included) set by reflection to a distinct non-zero value, so that a
// field added to schema.Sample that writeSample does not write shows up as a
// difference.
func filled(t *testing.T) schema.Sample {
	t.Helper()
	var s schema.Sample
	n := int64(0)
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		n++
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Int, reflect.Int64:
			v.SetInt(n * 1_000_003)
		case reflect.String:
			v.SetString("s" + string(rune('a'+n%26)))
		case reflect.Map:
			require.Equal(t, reflect.TypeFor[map[string]int64](), v.Type(), "a map writeSample does not know")
			v.Set(reflect.ValueOf(map[string]int64{"db": n, "cf_handle": -n}))
		default:
			require.Failf(t, "a field writeSample does not know", "kind %s", v.Kind())
		}
	}
	fill(reflect.ValueOf(&s).Elem())
	return s
}

// TestEventWriterMatchesEncodingJSON: writeSample writes the bytes
// encoding/json's Encoder writes for Event{Sample: s}, for a sample with
// every field set, for extreme numbers, for strings that need escaping
// (quotes, control characters, HTML characters, non-ASCII, invalid UTF-8,
// U+2028) and for nil and empty live counts; emit routes a sample there and
// every other event to encoding/json.
func TestEventWriterMatchesEncodingJSON(t *testing.T) {
	full := filled(t)
	for _, tc := range []struct {
		name string
		s    schema.Sample
	}{
		{"every field set", full},
		{"zero", schema.Sample{}},
		{"empty live counts, unavailable figures", schema.Sample{Model: "fixed", Trigger: schema.TriggerTimer,
			Memory:      schema.Memory{RSS: 1 << 40, NativeHeap: schema.Unavailable, GoHeap: schema.Unavailable},
			LiveNatives: map[string]int64{},
			RocksDB: schema.RocksDBMemory{MemTables: schema.Unavailable, TableReaders: schema.Unavailable,
				BlockCache: schema.Unavailable, OpenDBs: 2048}}},
		{"extreme numbers", schema.Sample{Seq: math.MaxInt, ElapsedNs: math.MinInt64, Lifecycles: math.MaxInt64,
			Memory: schema.Memory{FDs: math.MinInt}, LiveNatives: map[string]int64{"z": math.MinInt64, "a": math.MaxInt64}}},
		{"model with a run's suffixes", schema.Sample{Model: "leaky@jemalloc+synthetic", Trigger: schema.TriggerEnd}},
		{"strings to escape", schema.Sample{Model: "a\"b\\c\n\t\x01<tag>&amp;", Trigger: "é☃\u2028\u2029\xff\xfe",
			LiveNatives: map[string]int64{"<k>": 1, "\x7f": 2, "k\"": 3, "": 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			w := NewEventWriter(&got)
			require.NoError(t, w.WriteSample(&tc.s))
			want := jsonLine(t, Event{Sample: &tc.s})
			assert.Equal(t, string(want), got.String())

			// Again through emit, into the same reused buffer.
			got.Reset()
			require.NoError(t, w.Emit(Event{Sample: &tc.s}))
			assert.Equal(t, string(want), got.String())
		})
	}
	t.Run("not a sample", func(t *testing.T) {
		var got bytes.Buffer
		w := NewEventWriter(&got)
		for _, e := range []Event{
			{Info: &schema.ChildInfo{PID: 7, RocksDBVersion: "7.8.3", Allocator: "glibc"}},
			{Summary: &schema.Summary{Model: "fixed", Lifecycles: 3}},
			{Sample: &full, Summary: &schema.Summary{Model: "fixed"}}, // never sent; encoding/json writes both
		} {
			got.Reset()
			require.NoError(t, w.Emit(e))
			assert.Equal(t, string(jsonLine(t, e)), got.String())
		}
	})
}
