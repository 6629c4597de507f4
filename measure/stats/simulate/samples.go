package simulate

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/rocksleak/rocksleak/measure/stats"
)

// Series is one model's samples from a samples.csv (see measure.Sample):
// the counters and the two memory signals, in bytes and counts.
type Series struct {
	Model                             string
	Lifecycles, FailedCloses, Records []float64
	NativeHeap, RSS                   []float64
}

// Input returns the stats.Input of one signal ("native_heap" or "rss").
func (s Series) Input(signal string) stats.Input {
	in := stats.Input{Lifecycles: s.Lifecycles, FailedCloses: s.FailedCloses, Records: s.Records, Unit: "B"}
	switch signal {
	case "rss":
		in.Y = s.RSS
	default:
		in.Y = s.NativeHeap
	}
	return in
}

// ReadSamplesCSV reads a samples.csv written by rocksleak and returns its
// series by model, models sorted by name. Timer samples are left out, as
// analysis.FitSamples leaves them out (the fits regress on event counters),
// so that fits here are the tool's. Only the columns it needs are read; it
// fails on a missing column or a malformed number.
func ReadSamplesCSV(r io.Reader) ([]Series, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("simulate: samples.csv header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	need := []string{"model", "lifecycles", "failed_closes", "records", "native_heap", "rss"}
	trigger, hasTrigger := col["trigger"]
	for _, c := range need {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("simulate: samples.csv has no column %q", c)
		}
	}
	by := map[string]*Series{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("simulate: samples.csv line %d: %w", line, err)
		}
		if hasTrigger && rec[trigger] == "timer" {
			continue
		}
		m := rec[col["model"]]
		s := by[m]
		if s == nil {
			s = &Series{Model: m}
			by[m] = s
		}
		var v [5]float64
		for i, c := range need[1:] {
			f, err := strconv.ParseFloat(rec[col[c]], 64)
			if err != nil {
				return nil, fmt.Errorf("simulate: samples.csv line %d column %s: %w", line, c, err)
			}
			v[i] = f
		}
		s.Lifecycles = append(s.Lifecycles, v[0])
		s.FailedCloses = append(s.FailedCloses, v[1])
		s.Records = append(s.Records, v[2])
		s.NativeHeap = append(s.NativeHeap, v[3])
		s.RSS = append(s.RSS, v[4])
	}
	out := make([]Series, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out, nil
}
