package goengine

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/lifecycle"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/workload"
)

// logKey is what a record replaces: a kv store keeps one version per key
// (ts is 0), a window store one per key and timestamp.
type logKey struct {
	key string
	ts  int64
}

// logVersion is the record a logKey holds: its timestamp and version.
type logVersion struct{ ts, ver int64 }

// logKey is the logKey of a record of key at ts in the scenario's stores.
func (t *Topology) logKey(key string, ts int64) logKey {
	if t.sc.Store == scenarios.StoreWindow {
		return logKey{key: key, ts: ts}
	}
	return logKey{key: key}
}

// seedOldFormat writes every key once in the pre-upgrade format, so that the
// migrating store starts with old data and uses the dual accessor.
func (t *Topology) seedOldFormat(s *slot) error {
	env := lifecycle.NewEnv(nil) // setup, not the run under measurement
	cfg := t.storeConfig(s)
	cfg.Layout, cfg.Model, cfg.ExactlyOnce = lifecycle.KV, lifecycle.Fixed, false
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o755); err != nil {
		return err
	}
	st, err := lifecycle.Open(env, cfg)
	if err != nil {
		return fmt.Errorf("seeding old-format data: %w", err)
	}
	recs := make([]lifecycle.Record, 0, t.sc.KeySpread)
	for k := range t.sc.KeySpread {
		r := changelog.Record{Key: workload.Key(k)}
		recs = append(recs, lifecycle.Record{Key: []byte(r.Key), Value: t.value(s, r)})
		if _, err := s.clog.Append(r); err != nil {
			return fmt.Errorf("seeding old-format data: %w", err)
		}
		s.offset++
	}
	err = errors.Join(st.PutBatch(recs), st.Close(), s.clog.Flush())
	if err != nil {
		return fmt.Errorf("seeding old-format data: %w", err)
	}
	return nil
}

// value is the value of changelog record r of store s: deterministic, so the
// changelog keeps only keys, timestamps and versions and the harness can
// verify and replay (workload.RecordValue, which the JVM child computes too).
func (t *Topology) value(s *slot, r changelog.Record) []byte {
	if t.hooks.Value != nil {
		return t.hooks.Value(s.id(), r)
	}
	return workload.RecordValue(t.seed, t.sc.ValueBytes, s.task, s.idx, r.Key, r.Ts, r.Ver)
}

// openLog starts the writer of s's changelog file, whose s.offset records are
// already there.
func (t *Topology) openLog(s *slot) error {
	w, err := changelog.OpenWriter(changelog.Path(t.logRoot, s.task, s.idx), s.offset)
	if err != nil {
		return fmt.Errorf("changelog: %w", err)
	}
	s.clog = w
	return nil
}

// logFailed records a failure to write or read a changelog file; the first
// one stops the run (see RunChild).
func (t *Topology) logFailed(err error) {
	if t.logErr == nil {
		t.logErr = fmt.Errorf("changelog: %w", err)
	}
}

// flushLog commits s's changelog: its records written since the last flush
// go to its file.
func (t *Topology) flushLog(s *slot) {
	if s.clog != nil {
		if err := s.clog.Flush(); err != nil {
			t.logFailed(err)
		}
	}
}

// closeLogs flushes every changelog and lets its writer go.
func (t *Topology) closeLogs() {
	for _, tk := range t.tasks {
		for _, s := range tk.stores {
			if s.clog != nil {
				if err := s.clog.Close(); err != nil {
					t.logFailed(err)
				}
				s.clog = nil
			}
		}
	}
}

// scanLog flushes s's changelog and calls fn with each record of its file
// in offset order, the Entry's key valid during the call only. A window
// store's reader skips the records older than the changelog topic's
// retention: stream time − retention − windowstore.changelog.additional.retention.ms
// (cleanup.policy compact,delete; the broker would have deleted them).
func (t *Topology) scanLog(s *slot, fn func(changelog.Entry)) error {
	t.flushLog(s)
	floor := int64(math.MinInt64)
	if t.sc.Store == scenarios.StoreWindow {
		floor = t.streamTime - t.sc.RetentionMs - t.sc.AdditionalRetentionMs
	}
	return changelog.Scan(changelog.Path(t.logRoot, s.task, s.idx), func(e changelog.Entry) error {
		if e.Ts >= floor {
			fn(e)
		}
		return nil
	})
}

// live reports whether store s should hold a record at stream time ts: what
// its open store says; with none open, a window store's records in the
// segments live at the topology's stream time.
func (t *Topology) live(s *slot, ts int64) bool {
	if s.store != nil {
		return s.store.live(ts)
	}
	if t.sc.Store != scenarios.StoreWindow {
		return true
	}
	iv := t.sc.SegmentInterval()
	return ts/iv >= max(t.streamTime-t.sc.RetentionMs, 0)/iv
}

// latestLive fills t.latest with the last record of each key (window stores:
// each key and timestamp) of s's changelog that s should hold (see live), in
// one pass over its file. The map is the only view of a changelog the child
// holds and it is transient: reused from call to call, it holds at most
// key_spread entries for a kv store and the records of the live segments for
// a window store, whatever the run's length.
func (t *Topology) latestLive(s *slot) error {
	clear(t.latest)
	err := t.scanLog(s, func(e changelog.Entry) {
		if t.live(s, e.Ts) {
			t.latest[t.logKey(string(e.Key), e.Ts)] = logVersion{ts: e.Ts, ver: e.Ver}
		}
	})
	if err != nil {
		t.logFailed(err)
	}
	return err
}

// stale reports whether the reopened store misses changelog records it should
// hold: with no flush on commit (Kafka 4.3), a DB whose close could not flush
// (a sticky failure leaves it in a failed state) keeps only what was last
// flushed, its committed changelog offset included. Kafka sees this through
// the stale persisted offset and restores from it (KAFKA-20663); the harness
// sees it by reading the latest records back.
func (t *Topology) stale(s *slot) bool {
	if s.store == nil || t.latestLive(s) != nil {
		return false
	}
	for k, v := range t.latest {
		r := changelog.Record{Key: k.key, Ts: v.ts, Ver: v.ver}
		got, err := s.store.read(r)
		if err != nil || !bytes.Equal(got, t.value(s, r)) {
			return true
		}
	}
	return false
}
