package simulate

import (
	"fmt"
	"io"
	"sort"

	"github.com/rocksleak/rocksleak/measure/stats"
	"github.com/rocksleak/rocksleak/schema"
)

// Series is one model's samples from a samples.csv (see measure.Sample):
// the counters and the two memory signals, in bytes and counts.
type Series struct {
	Model                             string
	Lifecycles, FailedCloses, Records []float64
	// RestoredRecords is the cumulative count of changelog records
	// replayed by restores (zeros in files written before it was recorded).
	RestoredRecords []float64
	NativeHeap, RSS []float64
	// GoHeap is the child's Go heap (the instrument's own memory inside the
	// measured process; CleanRSS takes it out of RSS).
	GoHeap []float64
}

// CleanRSS is RSS less the instrument's Go heap, sample by sample: the RSS
// of the code under test, as far as samples.csv can tell it (the Go
// runtime's other memory, its GC headroom among it, is still in).
func (s Series) CleanRSS() []float64 {
	out := make([]float64, len(s.RSS))
	for i := range out {
		out[i] = s.RSS[i]
		if i < len(s.GoHeap) {
			out[i] -= s.GoHeap[i]
		}
	}
	return out
}

// Input returns the stats.Input of one signal ("native_heap" or "rss"), as
// analysis.FitSamples builds it: RSS with restored records as a regressor.
func (s Series) Input(signal string) stats.Input {
	in := stats.Input{Lifecycles: s.Lifecycles, FailedCloses: s.FailedCloses, Records: s.Records, Unit: "B"}
	switch signal {
	case "rss":
		in.Y = s.RSS
		in.RestoredRecords = s.RestoredRecords
	default:
		in.Y = s.NativeHeap
	}
	return in
}

// ReadSamplesCSV reads a samples.csv written by rocksleak (schema.ParseSamplesCSV) and returns its series by
// model, models sorted by name. Timer samples and the start sample are left out, as analysis.FitSamples leaves them
// out (the fits regress on event counters; the start sample precedes the first store), so that fits here are the
// tool's. It fails where schema.ParseSamplesCSV does: a missing column or a malformed number.
func ReadSamplesCSV(r io.Reader) ([]Series, error) {
	by, err := schema.ParseSamplesCSV(r)
	if err != nil {
		return nil, fmt.Errorf("simulate: samples.csv: %w", err)
	}
	out := make([]Series, 0, len(by))
	for m, samples := range by {
		s := Series{Model: m}
		for _, x := range samples {
			if x.Trigger == schema.TriggerTimer || x.Trigger == schema.TriggerStart {
				continue
			}
			s.Lifecycles = append(s.Lifecycles, float64(x.Lifecycles))
			s.FailedCloses = append(s.FailedCloses, float64(x.FailedCloses))
			s.Records = append(s.Records, float64(x.Records))
			s.RestoredRecords = append(s.RestoredRecords, float64(x.RestoredRecords))
			s.NativeHeap = append(s.NativeHeap, float64(x.NativeHeap))
			s.RSS = append(s.RSS, float64(x.RSS))
			s.GoHeap = append(s.GoHeap, float64(x.GoHeap))
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out, nil
}
