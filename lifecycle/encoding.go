package lifecycle

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// Keys of the offsets column family, as Kafka Streams writes them.
var (
	statusKey   = []byte("status")
	positionKey = []byte("position")
)

// Status values of the offsets CF "status" key.
const (
	StatusClosed int64 = 0
	StatusOpen   int64 = 1
)

// encodeLong is Kafka's LongSerializer: 8 bytes, big-endian.
func encodeLong(v int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(v))
	return b
}

func decodeLong(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("want 8 bytes for a long, have %d", len(b))
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// ChangelogKey is the offsets-CF key of a changelog partition: "<topic>-<partition>".
func ChangelogKey(topic string, partition int) string {
	return fmt.Sprintf("%s-%d", topic, partition)
}

// encodePosition serialises a position (topic-partition → offset) as version
// byte 0, an entry count and, per entry in key order, a length-prefixed key and
// an 8-byte offset.
func encodePosition(pos map[string]int64) []byte {
	keys := make([]string, 0, len(pos))
	for k := range pos {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte{0}
	b = binary.BigEndian.AppendUint32(b, uint32(len(keys)))
	for _, k := range keys {
		b = binary.BigEndian.AppendUint16(b, uint16(len(k)))
		b = append(b, k...)
		b = binary.BigEndian.AppendUint64(b, uint64(pos[k]))
	}
	return b
}

// WindowKey is the key of a record in a window-store segment: the record key
// followed by its timestamp (8 bytes, big-endian).
func WindowKey(key []byte, ts int64) []byte {
	out := make([]byte, 0, len(key)+8)
	out = append(out, key...)
	return binary.BigEndian.AppendUint64(out, uint64(ts))
}
