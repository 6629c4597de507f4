package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/spec"
)

// WindowConfig describes a segmented window store.
type WindowConfig struct {
	Dir               string // the task's state directory; segments live at Dir/Name/Name.<segmentStartMs>
	Name              string
	RetentionMs       int64
	SegmentIntervalMs int64 // 0: max(retention/2, 60 s), as Kafka derives it
	// Segment is the template for every segment (its Path is set per segment).
	Segment Config
}

// SegmentInterval is the interval Kafka uses for a retention period.
func SegmentInterval(retentionMs int64) int64 {
	return spec.SegmentIntervalMs(retentionMs, 0)
}

// WindowStore is a segmented window store: every segment is a whole Store.
// Segments are created as stream time advances and closed, then deleted from
// disk, when they expire. It owns its open segments; Close closes them all.
type WindowStore struct {
	cfg      WindowConfig
	env      *Env
	interval int64
	segments map[int64]*Store // by segment id
	dirty    map[int64]bool   // segments written since their last commit
	observed int64            // observed stream time, -1 before the first record
	armed    *Fault
	closed   bool
}

// OpenWindow opens the store's existing live segments (those on disk that are
// live at streamTime; expired ones are deleted) and returns the store. With
// streamTime −1 (Kafka's ConsumerRecord.NO_TIMESTAMP, the observed stream
// time of a store that has just been created: AbstractSegments.openExisting)
// every segment on disk is opened and none expires. On a
// segment open failure the segments opened so far are closed and the error is
// returned.
func OpenWindow(env *Env, cfg WindowConfig, streamTime int64) (*WindowStore, error) {
	if cfg.RetentionMs <= 0 {
		return nil, fmt.Errorf("window store %s: retention must be positive", cfg.Name)
	}
	if cfg.SegmentIntervalMs <= 0 {
		cfg.SegmentIntervalMs = SegmentInterval(cfg.RetentionMs)
	}
	w := &WindowStore{cfg: cfg, env: env, interval: cfg.SegmentIntervalMs,
		segments: map[int64]*Store{}, dirty: map[int64]bool{}, observed: streamTime}
	ids, err := w.onDisk()
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !w.live(id) {
			_ = os.RemoveAll(w.segmentPath(id))
			continue
		}
		if _, err := w.segment(id); err != nil {
			_ = w.Close()
			return nil, err
		}
	}
	return w, nil
}

func (w *WindowStore) root() string { return filepath.Join(w.cfg.Dir, w.cfg.Name) }

func (w *WindowStore) segmentPath(id int64) string {
	return filepath.Join(w.root(), w.cfg.Name+"."+strconv.FormatInt(id*w.interval, 10))
}

// onDisk lists the segment ids found in the store's directory.
func (w *WindowStore) onDisk() ([]int64, error) {
	entries, err := os.ReadDir(w.root())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []int64
	prefix := w.cfg.Name + "."
	for _, e := range entries {
		start, err := strconv.ParseInt(strings.TrimPrefix(e.Name(), prefix), 10, 64)
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) || err != nil {
			continue
		}
		ids = append(ids, start/w.interval)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// minLive is the smallest live segment id at the observed stream time.
func (w *WindowStore) minLive() int64 {
	if w.observed < 0 {
		return 0
	}
	min := w.observed - w.cfg.RetentionMs
	if min < 0 {
		return 0
	}
	return min / w.interval
}

func (w *WindowStore) live(id int64) bool { return id >= w.minLive() }

func (w *WindowStore) segment(id int64) (*Store, error) {
	if s, ok := w.segments[id]; ok {
		return s, nil
	}
	cfg := w.cfg.Segment
	cfg.Path = w.segmentPath(id)
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o755); err != nil {
		return nil, err
	}
	s, err := Open(w.env, cfg)
	if err != nil {
		return nil, fmt.Errorf("segment %s: %w", filepath.Base(cfg.Path), err)
	}
	w.segments[id] = s
	return s, nil
}

// ArmCloseFault makes every segment close fail its marker write with f until
// DisarmCloseFault (an exactly-once-v2 fencing cascade). Without it, segment
// closes draw from the Env's injector.
func (w *WindowStore) ArmCloseFault(f Fault) { w.armed = &f }

// DisarmCloseFault returns segment closes to the injector's draws.
func (w *WindowStore) DisarmCloseFault() { w.armed = nil }

func (w *WindowStore) closeSegment(id int64) error {
	s := w.segments[id]
	delete(w.segments, id)
	delete(w.dirty, id)
	if w.armed != nil {
		s.ArmCloseFault(*w.armed)
	}
	return s.Close()
}

// Put writes a record at timestamp ts, as Kafka's
// AbstractRocksDBSegmentedBytesStore.put does: stream time advances, the
// record's segment is created if it is live (KeyValueSegments.getOrCreateSegmentIfLive),
// and only then are the segments that are no longer live closed and deleted
// (cleanupExpiredSegments: close, then destroy). A record for an expired
// segment is dropped, as Kafka drops it. Close errors of expired segments are
// returned joined after the put is done.
func (w *WindowStore) Put(key []byte, ts int64, value []byte) error {
	if w.closed {
		return ErrClosed
	}
	w.observed = max(w.observed, ts)
	return w.putLive(key, ts, value)
}

// putLive writes the record into its segment if that is live at the observed
// stream time (creating it), then expires what is no longer live.
func (w *WindowStore) putLive(key []byte, ts int64, value []byte) error {
	id := ts / w.interval
	var errs []error
	if w.live(id) {
		s, err := w.segment(id)
		if err != nil {
			return errors.Join(err, w.expire())
		}
		errs = append(errs, s.Put(WindowKey(key, ts), value))
		w.dirty[id] = true
	}
	errs = append(errs, w.expire())
	return errors.Join(errs...)
}

// WindowRecord is one changelog record of a window store.
type WindowRecord struct {
	Key   []byte
	Ts    int64
	Value []byte
}

// RestoreBatch writes one restore batch as Kafka's
// AbstractRocksDBSegmentedBytesStore.restoreAllInternal → getWriteBatches
// does: it first advances the observed stream time to the batch's largest
// timestamp, then puts each record into its segment if that segment is live at
// that time (creating it, then cleaning up expired segments); records of
// segments already expired at the batch's end are skipped. So a batch spanning
// more than the retention skips the segments in between instead of creating
// and expiring them. (Kafka writes each segment's records in one WriteBatch;
// this writes them one by one.) Errors are joined; the batch goes on.
func (w *WindowStore) RestoreBatch(records []WindowRecord) error {
	if w.closed {
		return ErrClosed
	}
	for _, r := range records {
		w.observed = max(w.observed, r.Ts)
	}
	var errs []error
	for _, r := range records {
		if err := w.putLive(r.Key, r.Ts, r.Value); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// expire closes and deletes every segment that is no longer live.
func (w *WindowStore) expire() error {
	var errs []error
	for _, id := range w.sortedIDs() {
		if w.live(id) {
			continue
		}
		path := w.segments[id].Path()
		errs = append(errs, w.closeSegment(id))
		errs = append(errs, os.RemoveAll(path))
	}
	return errors.Join(errs...)
}

func (w *WindowStore) sortedIDs() []int64 {
	ids := make([]int64, 0, len(w.segments))
	for id := range w.segments {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Fetch reads the record of key at timestamp ts; nil when absent or expired.
func (w *WindowStore) Fetch(key []byte, ts int64) ([]byte, error) {
	if w.closed {
		return nil, ErrClosed
	}
	s, ok := w.segments[ts/w.interval]
	if !ok {
		return nil, nil
	}
	return s.Get(WindowKey(key, ts))
}

// Commit commits the changelog offsets into every segment written since its
// last commit, without flushing (see Store.Commit).
func (w *WindowStore) Commit(offsets map[string]int64) error {
	var errs []error
	for _, id := range w.sortedIDs() {
		if w.dirty[id] {
			errs = append(errs, w.segments[id].Commit(offsets))
			delete(w.dirty, id)
		}
	}
	return errors.Join(errs...)
}

// StreamTime is the observed stream time (-1 before any record).
func (w *WindowStore) StreamTime() int64 { return w.observed }

// Segments lists the open segments in id order.
func (w *WindowStore) Segments() []*Store {
	out := make([]*Store, 0, len(w.segments))
	for _, id := range w.sortedIDs() {
		out = append(out, w.segments[id])
	}
	return out
}

// Live reports whether a record at ts is in a live segment.
func (w *WindowStore) Live(ts int64) bool { return w.live(ts / w.interval) }

// Close closes every open segment (their directories stay for a reopen).
// It returns the joined close errors; calling it again does nothing.
func (w *WindowStore) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	var errs []error
	for _, id := range w.sortedIDs() {
		errs = append(errs, w.closeSegment(id))
	}
	return errors.Join(errs...)
}
