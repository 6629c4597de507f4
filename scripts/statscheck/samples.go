package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats/simulate"
)

// readSamplesCSV reads a samples.csv written by rocksleak (schema.ParseSamplesCSV) and returns its series by
// model, models sorted by name. Timer samples and the start sample are left out, as analysis.FitSamples leaves them
// out (the fits regress on event counters; the start sample precedes the first store), so that fits here are the
// tool's. It fails where schema.ParseSamplesCSV does: a missing column or a malformed number.
func readSamplesCSV(r io.Reader) ([]simulate.Series, error) {
	by, err := schema.ParseSamplesCSV(r)
	if err != nil {
		return nil, fmt.Errorf("samples.csv: %w", err)
	}
	out := make([]simulate.Series, 0, len(by))
	for m, samples := range by {
		s := simulate.Series{Model: m}
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
			s.CodeRSS = append(s.CodeRSS, analysis.SignalValue(x, analysis.SignalRSS))
			s.GoHeap = append(s.GoHeap, float64(x.GoHeap))
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out, nil
}

// loadRun reads runDir/seed-*/samples.csv and returns each seed's series by
// model.
func loadRun(runDir string) ([]map[string]simulate.Series, error) {
	paths, err := filepath.Glob(filepath.Join(runDir, "seed-*", "samples.csv"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []map[string]simulate.Series
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		ss, err := readSamplesCSV(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		m := map[string]simulate.Series{}
		for _, s := range ss {
			m[s.Model] = s
		}
		out = append(out, m)
	}
	return out, nil
}
