package lifecycle

/*
#include <stdlib.h>
#include <string.h>

static void *rocksleak_touch_alloc(size_t n) {
	void *p = malloc(n);
	if (p != NULL) {
		memset(p, 0xA5, n);
	}
	return p;
}
*/
import "C"

import "unsafe"

// leakSynthetic mallocs n bytes of C memory, touches every byte and never frees
// it, recording it in the ledger as a live synthetic object. It is the known
// leak of the calibration scenario.
func (l *Ledger) leakSynthetic(n int) {
	if n <= 0 {
		return
	}
	p := C.rocksleak_touch_alloc(C.size_t(n))
	if p == nil {
		return
	}
	l.track(KindSynthetic, "synthetic-leak", func() {})
}

// Scratch is a transient block of touched C memory, held by each restore
// while it replays a changelog (restore_scratch_bytes): a synthetic negative
// control for the leak estimators (the restore-peak scenario), not a Kafka
// code path. The JVM engine holds the same in RestoreScratch.java. Free
// releases it; calling Free twice is safe.
type Scratch struct {
	p unsafe.Pointer
}

// NewScratch mallocs and touches n bytes of C memory (none when n ≤ 0).
func NewScratch(n int) *Scratch {
	if n <= 0 {
		return &Scratch{}
	}
	return &Scratch{p: C.rocksleak_touch_alloc(C.size_t(n))}
}

// Free releases the block.
func (s *Scratch) Free() {
	if s == nil || s.p == nil {
		return
	}
	C.free(s.p)
	s.p = nil
}
