package lifecycle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// VersionedSegments is the segment layer of a versioned key-value store, as
// Kafka's LogicalKeyValueSegments builds it: many logical segments, each a key
// prefix (the segment id, 8 bytes big-endian) inside ONE physical RocksDB
// store. Creating a logical segment opens nothing; expiring one deletes its key
// range from the physical store (LogicalKeyValueSegment.deleteRange) and
// closes nothing; only Close closes the physical store, so the DB's default
// read options can be released only then.
//
// Ownership: it owns the physical store; Close closes it and is idempotent.
type VersionedSegments struct {
	physical  *Store
	retention int64
	interval  int64
	segments  map[int64]bool
	closed    bool
}

// OpenVersionedSegments opens the physical store described by cfg (Kafka's
// LogicalKeyValueSegments.openExisting) for segments of intervalMs within
// retentionMs.
func OpenVersionedSegments(env *Env, cfg Config, retentionMs, intervalMs int64) (*VersionedSegments, error) {
	if retentionMs <= 0 || intervalMs <= 0 {
		return nil, fmt.Errorf("versioned segments: retention %d and interval %d must be positive", retentionMs, intervalMs)
	}
	s, err := Open(env, cfg)
	if err != nil {
		return nil, fmt.Errorf("versioned segments: physical store: %w", err)
	}
	return &VersionedSegments{physical: s, retention: retentionMs, interval: intervalMs, segments: map[int64]bool{}}, nil
}

// Physical is the physical store every logical segment lives in.
func (v *VersionedSegments) Physical() *Store { return v.physical }

func (v *VersionedSegments) minLive(streamTime int64) int64 {
	return (streamTime - v.retention) / v.interval
}

// GetOrCreateSegmentIfLive is Kafka's AbstractSegments.getOrCreateSegmentIfLive:
// the logical segment id is created if it is live at streamTime (ok reports
// whether it is), then the expired logical segments are cleaned up: their key
// ranges are deleted from the physical store, which stays open.
func (v *VersionedSegments) GetOrCreateSegmentIfLive(id, streamTime int64) (ok bool, err error) {
	if v.closed {
		return false, ErrClosed
	}
	minLive := v.minLive(streamTime)
	if id >= minLive {
		v.segments[id] = true
		ok = true
	}
	var errs []error
	for _, sid := range v.Segments() {
		if sid < minLive {
			errs = append(errs, v.physical.deleteRange(segmentPrefix(sid), segmentPrefix(sid+1)))
			delete(v.segments, sid)
		}
	}
	return ok, errors.Join(errs...)
}

// Put writes key in logical segment id (which must exist).
func (v *VersionedSegments) Put(id int64, key, value []byte) error {
	if !v.segments[id] {
		return fmt.Errorf("versioned segments: no live logical segment %d", id)
	}
	return v.physical.Put(append(segmentPrefix(id), key...), value)
}

// Get reads key from logical segment id; nil when absent.
func (v *VersionedSegments) Get(id int64, key []byte) ([]byte, error) {
	return v.physical.Get(append(segmentPrefix(id), key...))
}

// Segments lists the live logical segment ids in order.
func (v *VersionedSegments) Segments() []int64 {
	ids := make([]int64, 0, len(v.segments))
	for id := range v.segments {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Close drops every logical segment and closes the physical store (Kafka's
// LogicalKeyValueSegments.close). Calling it again does nothing.
func (v *VersionedSegments) Close() error {
	if v.closed {
		return nil
	}
	v.closed = true
	clear(v.segments)
	return v.physical.Close()
}

func segmentPrefix(id int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(id))
}
