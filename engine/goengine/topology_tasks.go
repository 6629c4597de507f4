package goengine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/changelog"
	"github.com/rocksleak/rocksleak/schema"
)

// The topology driven task by task, by a driver other than RunChild's loop
// (package fleet's instances): a task's stores resumed over the state the
// process kept, one task stepped or moved at a time, the tallies read as
// they stand. Every method runs on the topology's goroutine.

// StoreID names one store of the topology: store Store of task Task.
type StoreID struct{ Task, Store int }

// How a store came up when its task was resumed (StoreOpen.How).
const (
	StoreReopened = "reopened"  // own state, committed offset at the changelog's end
	StoreCaughtUp = "caught-up" // own state behind the changelog: replayed
	StoreRestored = "restored"  // wiped (unclean status) or not held: restored from the changelog
	StoreNew      = "new"       // nothing to restore
)

// StoreOpen is one store as its task was resumed (or, from CommittedOffsets,
// as it stands).
type StoreOpen struct {
	Task  int    `json:"task"`
	Store int    `json:"store"`
	How   string `json:"how"`
	// Committed is the changelog offset the store had committed when it
	// was opened (HasCommitted false: none); ChangelogEnd the changelog's
	// end offset then.
	Committed    int64  `json:"committed"`
	HasCommitted bool   `json:"has_committed"`
	ChangelogEnd int64  `json:"changelog_end"`
	Error        string `json:"error,omitempty"`
}

// Tasks is the number of the scenario's tasks.
func (t *Topology) Tasks() int { return len(t.tasks) }

// ResumeTask opens the stores of task k at input step pos, each changelog
// file's records already there: over the task's state under the topology's
// root when the process kept some (the highest gen-N directory), else
// restored from the changelog, else new. ok is false when ctx was cancelled
// before every store was open.
func (t *Topology) ResumeTask(ctx context.Context, k int, pos int64) (opens []StoreOpen, ok bool, err error) {
	if k < 0 || k >= len(t.tasks) {
		return nil, false, fmt.Errorf("child: task %d is not in the scenario (%d tasks)", k, len(t.tasks))
	}
	tk := t.tasks[k]
	t.streamTime = pos * t.sc.StepMs
	gen, held := heldGen(filepath.Join(t.root, fmt.Sprintf("task-%d", k)))
	for _, s := range tk.stores {
		s.gen = gen
		n, err := changelog.Count(changelog.Path(t.logRoot, k, s.idx))
		if err != nil {
			return nil, false, fmt.Errorf("child: %w", err)
		}
		s.offset = n
		if err := t.openLog(s); err != nil {
			return nil, false, fmt.Errorf("child: %w", err)
		}
	}
	for _, s := range tk.stores {
		if ctx.Err() != nil {
			return opens, false, nil
		}
		opens = append(opens, t.resumeStore(s, held))
	}
	t.after()
	return opens, true, nil
}

// resumeStore opens one store of a resumed task: over the process's own
// state when it holds the task, else restored from the changelog.
func (t *Topology) resumeStore(s *slot, held bool) StoreOpen {
	so := StoreOpen{Task: s.task, Store: s.idx, ChangelogEnd: s.offset}
	restores := t.restoreLog.count()
	errs := t.taskErrors
	switch {
	case held:
		t.open(s)
		so.How = StoreReopened
		if t.restoreLog.count() > restores {
			so.How = StoreRestored // unclean status (wiped) or stale (caught up in full)
		}
		if s.store != nil && so.How == StoreReopened {
			so.Committed, so.HasCommitted = t.committedOffset(s)
			if !so.HasCommitted || so.Committed < s.offset {
				t.catchUp(s)
				t.verify(s)
				so.How = StoreCaughtUp
			}
		}
	case s.offset > 0:
		t.restore(s, false)
		so.How = StoreRestored
	default:
		t.open(s)
		so.How = StoreNew
	}
	if t.taskErrors > errs {
		so.Error = t.lastTaskError
	}
	return so
}

// heldGen finds the directory generation of a task's state the process
// holds (the highest gen-N under dir); held is false when it holds none.
func heldGen(dir string) (gen int, held bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), "gen-")
		if !ok || !e.IsDir() {
			continue
		}
		if g, err := strconv.Atoi(n); err == nil && (!held || g > gen) {
			gen, held = g, true
		}
	}
	return gen, held
}

// committedOffset reads the changelog offset open store s has committed
// under hooks.Partition (none without it): a key-value store's from its
// offsets CF; a window store's the highest of its segments'.
func (t *Topology) committedOffset(sl *slot) (int64, bool) {
	if t.hooks.Partition == nil {
		return 0, false
	}
	key := t.hooks.Partition(sl.id())
	switch s := sl.store.(type) {
	case kvSlot:
		off, ok, err := s.s.Offset(key)
		return off, ok && err == nil
	case windowSlot:
		var best int64
		found := false
		for _, seg := range s.w.Segments() {
			if off, ok, err := seg.Offset(key); err == nil && ok && (!found || off > best) {
				best, found = off, true
			}
		}
		return best, found
	}
	return 0, false
}

// CommittedOffsets reads the committed changelog offset of each store of
// the tasks under Hooks.Partition (HasCommitted false for a store that is
// not open, and without the hook).
func (t *Topology) CommittedOffsets(tasks []int) []StoreOpen {
	var out []StoreOpen
	for _, k := range tasks {
		for _, s := range t.tasks[k].stores {
			so := StoreOpen{Task: s.task, Store: s.idx, ChangelogEnd: s.offset}
			if s.store != nil {
				so.Committed, so.HasCommitted = t.committedOffset(s)
			}
			out = append(out, so)
		}
	}
	return out
}

// StepTask processes input step pos of task k (stream time from pos × step
// to the step after): every store gets its records, then commits, then its
// changelog commits. False when ctx was cancelled midway.
func (t *Topology) StepTask(ctx context.Context, k int, pos int64) bool {
	prev := pos * t.sc.StepMs
	t.streamTime = prev + t.sc.StepMs
	t.steps++
	return t.stepTask(ctx, t.tasks[k], prev)
}

// RebalanceTask closes every store of task k and reopens it, as the task
// moving away and back does (one rebalance); false when ctx was cancelled
// midway.
func (t *Topology) RebalanceTask(ctx context.Context, k int) bool {
	t.rebalances++
	return t.reopenTask(ctx, t.tasks[k])
}

// Read is what store id returns for record r's key (and, in a window store,
// timestamp): nil when the store is not open or the read failed.
func (t *Topology) Read(id StoreID, r changelog.Record) []byte {
	s := t.tasks[id.Task].stores[id.Store]
	if s.store == nil {
		return nil
	}
	v, err := s.store.read(r)
	if err != nil {
		return nil
	}
	return v
}

// Checked is what the topology's reads back have found so far: records lost,
// task errors, records verified.
func (t *Topology) Checked() (lost, taskErrors, verified int64) {
	return t.lost, t.taskErrors, t.verified
}

// LogErr is the first failure to write or read a changelog file (the
// instrument's, not the stores'); nil while there is none.
func (t *Topology) LogErr() error { return t.logErr }

// RestoreMark is where the restores' tally stood (see RestoresSince).
type RestoreMark struct{ restores, records, lifecycles int64 }

// RestoreMark marks the restores' tally now.
func (t *Topology) RestoreMark() RestoreMark {
	return RestoreMark{restores: t.restoreLog.count(), records: t.restored, lifecycles: t.restoreLifecycles}
}

// RestoresSince summarises the restores since m.
func (t *Topology) RestoresSince(m RestoreMark) (schema.RestoreStats, error) {
	restores, err := t.restoreLog.since(m.restores)
	if err != nil {
		return schema.RestoreStats{}, err
	}
	rs := restoreStats(restores, t.restored-m.records)
	rs.SegmentLifecycles = t.restoreLifecycles - m.lifecycles
	return rs, nil
}
