package harness

import (
	"encoding/json"
	"io"
	"slices"
	"strconv"

	"github.com/rocksleak/rocksleak/schema"
)

// EventWriter writes a child's Events to its parent as JSON lines, one Write
// per event. The parent reads them with encoding/json (decodeEvents).
//
// A sample, which the child writes after every lifecycle, is appended by hand
// into a reused buffer (WriteSample): the same bytes encoding/json's Encoder
// writes for Event{Sample: s} (field order, map keys sorted, HTML-safe string
// escaping, a newline at the end; TestEventWriterMatchesEncodingJSON fills
// every field of schema.Sample, so a field added there and not here fails it),
// without encoding/json's reflection and its allocations. Every other event
// goes through encoding/json.
//
// An EventWriter is not safe for concurrent use.
type EventWriter struct {
	w    io.Writer
	enc  *json.Encoder
	buf  []byte   // the sample's line, reused
	keys []string // live_natives' keys in order, reused
}

// NewEventWriter writes to w.
func NewEventWriter(w io.Writer) *EventWriter {
	return &EventWriter{w: w, enc: json.NewEncoder(w), buf: make([]byte, 0, 1024)}
}

// Emit writes one event: a sample alone by WriteSample, anything else by
// encoding/json.
func (w *EventWriter) Emit(e Event) error {
	if e.Sample != nil && e == (Event{Sample: e.Sample}) {
		return w.WriteSample(e.Sample)
	}
	return w.enc.Encode(e)
}

// Encode writes any other JSON value as one line (package fleet's instance
// events), by encoding/json.
func (w *EventWriter) Encode(v any) error { return w.enc.Encode(v) }

// WriteSample writes Event{Sample: s}. It does not retain s.
func (w *EventWriter) WriteSample(s *schema.Sample) error {
	b := append(w.buf[:0], `{"sample":{"model":`...)
	b = appendJSONString(b, s.Model)
	b = appendField(b, "seq", int64(s.Seq))
	b = appendField(b, "elapsed_ns", s.ElapsedNs)
	b = append(b, `,"trigger":`...)
	b = appendJSONString(b, s.Trigger)
	b = appendField(b, "lifecycles", s.Lifecycles)
	b = appendField(b, "failed_closes", s.FailedCloses)
	b = appendField(b, "init_failures", s.InitFailures)
	b = appendField(b, "task_errors", s.TaskErrors)
	b = appendField(b, "records", s.Records)
	b = appendField(b, "restores", s.Restores)
	b = appendField(b, "restored_records", s.RestoredRecords)
	b = appendField(b, "rss", s.RSS)
	b = appendField(b, "vms", s.VMS)
	b = appendField(b, "fds", int64(s.FDs))
	b = appendField(b, "native_heap", s.NativeHeap)
	b = appendField(b, "go_heap", s.GoHeap)
	b = appendField(b, "runtime_bytes", s.RuntimeBytes)
	b = appendField(b, "runtime_malloc", s.RuntimeMalloc)
	b = append(b, `,"live_natives":`...)
	if s.LiveNatives == nil {
		b = append(b, "null"...)
	} else {
		w.keys = w.keys[:0]
		for k := range s.LiveNatives {
			w.keys = append(w.keys, k)
		}
		slices.Sort(w.keys) // encoding/json sorts a map's string keys
		b = append(b, '{')
		for i, k := range w.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = strconv.AppendInt(b, s.LiveNatives[k], 10)
		}
		b = append(b, '}')
	}
	b = append(b, `,"rocksdb":{"memtables":`...)
	b = strconv.AppendInt(b, s.RocksDB.MemTables, 10)
	b = appendField(b, "table_readers", s.RocksDB.TableReaders)
	b = appendField(b, "block_cache", s.RocksDB.BlockCache)
	b = appendField(b, "open_dbs", int64(s.RocksDB.OpenDBs))
	b = appendField(b, "caches", int64(s.RocksDB.Caches))
	b = appendField(b, "caches_usage", s.RocksDB.CachesUsage)
	b = appendField(b, "caches_capacity", s.RocksDB.CachesCapacity)
	b = append(b, "}}}\n"...)
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

// appendField appends `,"name":v`; name needs no escaping.
func appendField(b []byte, name string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

// appendJSONString appends s as encoding/json encodes a string (with HTML
// escaping, its default): printable ASCII other than `"`, `\`, `<`, `>` and
// `&` as it is, anything else by encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
