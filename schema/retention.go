package schema

import "github.com/rocksleak/rocksleak/spec"

// Retention is the allocator-retention probe a Go child takes once, at the end of its model's run, after its last
// sample (measure.Sampler.ProbeRetention): how much of the process's RSS was free memory the C allocator held rather
// than memory in use. The probe makes the allocator give its free pages back (glibc: malloc_trim(0); jemalloc:
// mallctl "arena.4096.purge", every arena) and reads RSS and the allocator's figures just before and just after. It
// changes the heap, so it is never taken between two samples of a series. Bytes, raw.
type Retention struct {
	Allocator spec.Allocator `json:"allocator"`
	// Action is what the probe asked of the allocator: "malloc_trim(0)" or "arena.4096.purge".
	Action string `json:"action"`
	// Lifecycles is the lifecycle count at the probe (the last sample's).
	Lifecycles int64 `json:"lifecycles"`
	RSSBefore  int64 `json:"rss_before"`
	RSSAfter   int64 `json:"rss_after"`
	// Released is RSSBefore − RSSAfter: the resident memory that was the allocator's retention, not memory in use.
	// It may be slightly negative when other threads touched pages meanwhile.
	Released int64 `json:"released"`
	// NativeHeapBefore and NativeHeapAfter are the bytes in use (as in Memory.NativeHeap); the probe frees nothing in
	// use, so they agree within what other threads allocate meanwhile.
	NativeHeapBefore int64 `json:"native_heap_before"`
	NativeHeapAfter  int64 `json:"native_heap_after"`
	// AllocatorFreeBefore and AllocatorFreeAfter are the allocator's free memory. glibc: mallinfo2's fordblks, the
	// free bytes in every arena's bins and top chunks, resident or not (malloc_trim returns their whole pages to the
	// system but keeps the chunks free, so fordblks barely moves: Released is the figure to read). jemalloc:
	// stats.resident − stats.allocated, the resident pages it maps beyond what is allocated (dirty pages, partly used
	// slabs, its own metadata), which the purge lowers.
	AllocatorFreeBefore int64 `json:"allocator_free_before"`
	AllocatorFreeAfter  int64 `json:"allocator_free_after"`
	// TopReleasableBefore is glibc's keepcost (mallinfo2): the main arena's top chunk, what free() alone could give
	// back. 0 under jemalloc.
	TopReleasableBefore int64 `json:"top_releasable_before,omitempty"`
	// jemalloc only (0 under glibc): stats.resident and stats.retained (virtual memory kept mapped-out for reuse, not
	// resident, so not in RSS) before and after the purge.
	ResidentBefore int64 `json:"jemalloc_resident_before,omitempty"`
	ResidentAfter  int64 `json:"jemalloc_resident_after,omitempty"`
	RetainedBefore int64 `json:"jemalloc_retained_before,omitempty"`
	RetainedAfter  int64 `json:"jemalloc_retained_after,omitempty"`
	// DurationNs is how long the trim or purge took.
	DurationNs int64 `json:"duration_ns"`
	// Error says why the probe's figures are missing or partial.
	Error string `json:"error,omitempty"`
}

// ReleasedFraction is Released over RSSBefore, 0 when RSSBefore is not positive.
func (r Retention) ReleasedFraction() float64 {
	if r.RSSBefore <= 0 {
		return 0
	}
	return float64(r.Released) / float64(r.RSSBefore)
}
