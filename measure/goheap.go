package measure

import (
	"fmt"
	"runtime/metrics"
)

const goHeapMetric = "/memory/classes/heap/objects:bytes"

// goHeapReader reads the live Go heap of the calling process. It reuses its sample slice and is not safe for
// concurrent use.
type goHeapReader struct {
	samples []metrics.Sample
}

func newGoHeapReader() *goHeapReader {
	return &goHeapReader{samples: []metrics.Sample{{Name: goHeapMetric}}}
}

func (g *goHeapReader) read() (int64, error) {
	metrics.Read(g.samples)
	v := g.samples[0].Value
	if v.Kind() != metrics.KindUint64 {
		return 0, fmt.Errorf("measure: runtime/metrics %s: unexpected kind %d", goHeapMetric, v.Kind())
	}
	return int64(v.Uint64()), nil
}
