package measure

import (
	"fmt"
	"runtime/metrics"
)

// The runtime/metrics the Go runtime's figures are read from.
const (
	goHeapMetric        = "/memory/classes/heap/objects:bytes"
	goTotalMetric       = "/memory/classes/total:bytes"
	goHeapReleaseMetric = "/memory/classes/heap/released:bytes"
)

// goHeapReader reads the calling process's live Go heap and the Go runtime's resident memory. It reuses its sample
// slice and is not safe for concurrent use.
type goHeapReader struct {
	samples []metrics.Sample
}

func newGoHeapReader() *goHeapReader {
	return &goHeapReader{samples: []metrics.Sample{{Name: goHeapMetric}, {Name: goTotalMetric}, {Name: goHeapReleaseMetric}}}
}

// read returns the bytes of Go heap objects (live and not yet swept) and the resident bytes the Go runtime holds:
// every memory class the runtime has mapped ("/memory/classes/total:bytes": heap objects, unused and free heap
// spans, stacks, the runtime's metadata, profiling buckets, other) less what it returned to the OS
// ("/memory/classes/heap/released:bytes"). The runtime counts the classes as mapped and ready, not as resident:
// pages it mapped but never touched (the untouched part of an arena's metadata, a span allocated but not yet
// written) count as held, and pages the kernel swapped out too, so the figure can exceed the runtime's true resident
// share by those pages; what the runtime released is not counted even before the kernel reclaims it. The stacks of
// threads created by C (pthreads, RocksDB's background threads) are not the runtime's and are not counted.
func (g *goHeapReader) read() (heap, runtime int64, err error) {
	metrics.Read(g.samples)
	var v [3]uint64
	for i, s := range g.samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0, 0, fmt.Errorf("measure: runtime/metrics %s: unexpected kind %d", s.Name, s.Value.Kind())
		}
		v[i] = s.Value.Uint64()
	}
	return int64(v[0]), int64(v[1] - min(v[2], v[1])), nil
}
