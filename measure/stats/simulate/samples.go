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
	// RestoredRecords is the cumulative count of changelog records
	// replayed by restores (zeros in files written before it was recorded).
	RestoredRecords []float64
	NativeHeap, RSS []float64
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

// ReadSamplesCSV reads a samples.csv written by rocksleak and returns its
// series by model, models sorted by name. Timer samples and the start
// sample are left out, as analysis.FitSamples leaves them out (the fits
// regress on event counters; the start sample precedes the first store),
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
		if hasTrigger && (rec[trigger] == "timer" || rec[trigger] == "start") {
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
		rr := 0.0
		if i, ok := col["restored_records"]; ok {
			if rr, err = strconv.ParseFloat(rec[i], 64); err != nil {
				return nil, fmt.Errorf("simulate: samples.csv line %d column restored_records: %w", line, err)
			}
		}
		s.RestoredRecords = append(s.RestoredRecords, rr)
	}
	out := make([]Series, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out, nil
}
