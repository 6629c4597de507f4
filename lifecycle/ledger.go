package lifecycle

import (
	"fmt"
	"sort"
	"sync"
)

// Kind names a class of native (C) object the stores create.
type Kind string

// The kinds of native object the ledger tracks.
const (
	KindDB           Kind = "db"
	KindCFHandle     Kind = "cf_handle"
	KindOptions      Kind = "options"
	KindTableOptions Kind = "table_options"
	KindCache        Kind = "cache"
	KindReadOptions  Kind = "read_options"
	KindWriteOptions Kind = "write_options"
	KindFlushOptions Kind = "flush_options"
	KindWriteBatch   Kind = "write_batch"
	KindIterator     Kind = "iterator"
	// KindSynthetic is the calibration leak: C memory malloc'd, touched and never freed on purpose.
	KindSynthetic Kind = "synthetic"
)

// Kinds lists every kind in a fixed order (for tables and CSV columns).
func Kinds() []Kind {
	return []Kind{KindDB, KindCFHandle, KindOptions, KindTableOptions, KindCache,
		KindReadOptions, KindWriteOptions, KindFlushOptions, KindWriteBatch, KindIterator, KindSynthetic}
}

// Ledger is the single source of truth for which native objects are still owned.
// Every native object a store creates is registered here when it is created and
// marked when its C object is destroyed. It is safe for concurrent use and costs
// one mutex round trip per create or destroy, so it stays on in measured runs.
type Ledger struct {
	mu      sync.Mutex
	live    map[Kind]int64
	created map[Kind]int64
	late    map[Kind]int64
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{live: map[Kind]int64{}, created: map[Kind]int64{}, late: map[Kind]int64{}}
}

// Live returns the number of live (still owned, not destroyed) objects by kind.
// Kinds with no live object are omitted.
func (l *Ledger) Live() map[Kind]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[Kind]int64, len(l.live))
	for k, v := range l.live {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// LiveTotal is the number of live objects of all kinds.
func (l *Ledger) LiveTotal() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for _, v := range l.live {
		n += v
	}
	return n
}

// Created returns how many objects of each kind were ever created.
func (l *Ledger) Created() map[Kind]int64 { return l.copyOf(l.created) }

// ReleasedLate returns, by kind, how many objects were released by a safety net
// (the owner skipped them and something else destroyed them later).
func (l *Ledger) ReleasedLate() map[Kind]int64 { return l.copyOf(l.late) }

func (l *Ledger) copyOf(m map[Kind]int64) map[Kind]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[Kind]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// String renders the live counts, e.g. "cf_handle=2 db=1", or "none".
func (l *Ledger) String() string {
	live := l.Live()
	if len(live) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(live))
	for k := range live {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s=%d", k, live[Kind(k)])
	}
	return s
}

// track registers a new live native object. destroy must release its C object;
// it is called at most once.
func (l *Ledger) track(kind Kind, label string, destroy func()) *Native {
	l.mu.Lock()
	l.live[kind]++
	l.created[kind]++
	l.mu.Unlock()
	return &Native{kind: kind, label: label, ledger: l, destroy: destroy}
}

func (l *Ledger) released(kind Kind, late bool) {
	l.mu.Lock()
	l.live[kind]--
	if late {
		l.late[kind]++
	}
	l.mu.Unlock()
}

// Native is the ledger's record of one C object: the analogue of a RocksJava
// object with isOwningHandle(). It owns its C object from creation until Close
// (or ReleaseLate) destroys it; after that it owns nothing, and closing it again
// does nothing. Native is not safe for concurrent Close from several goroutines;
// every native object has exactly one owner.
type Native struct {
	kind     Kind
	label    string
	ledger   *Ledger
	destroy  func()
	released bool
	late     bool
}

// Kind is the object's kind.
func (n *Native) Kind() Kind { return n.kind }

// Label says which object this is within its store, e.g. "offsets-cf-options".
func (n *Native) Label() string { return n.label }

// Owning reports whether the C object still exists and is owned through this record.
func (n *Native) Owning() bool { return n != nil && !n.released }

// ReleasedLate reports whether a safety net, not the owner, destroyed the object.
func (n *Native) ReleasedLate() bool { return n != nil && n.late }

// Close destroys the C object once. It is idempotent and never fails; the error
// result is there to satisfy io.Closer.
func (n *Native) Close() error {
	n.release(false)
	return nil
}

// ReleaseLate destroys the C object on behalf of an owner that skipped it, and
// records it as released late. It does nothing if the object is already released.
func (n *Native) ReleaseLate() {
	n.release(true)
}

func (n *Native) release(late bool) {
	if n == nil || n.released {
		return
	}
	n.released = true
	n.late = late
	n.destroy()
	n.destroy = nil
	n.ledger.released(n.kind, late)
}
