package main

import (
	"strings"
	"testing"
)

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []float64
		want summaryStats
	}{
		{"none", nil, summaryStats{}},
		{"odd", []float64{1.17, 0.99, 1.077, 1.02, 1.1}, summaryStats{5, 1.077, 0.99, 1.17}},
		{"even", []float64{2, 1, 4, 3}, summaryStats{4, 2.5, 1, 4}},
	} {
		if got := spread(tc.in); got != tc.want {
			t.Errorf("%s: spread(%v) = %+v, want %+v", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestSampleMicros(t *testing.T) {
	for _, tc := range []struct {
		stderr string
		want   float64
	}{
		{"rocksleak child: instrumented: 331 lifecycles in 13.808 s (23.97/s), 140 samples taking 0.842 s (6013 µs each)\n", 6013},
		{"rocksleak child: bare: 635 lifecycles in 15.262 s (41.61/s), 0 samples taking 0.000 s (0 µs each)\n", 0},
		{"something else\n", 0},
		{"", 0},
	} {
		if got := sampleMicros(tc.stderr); got != tc.want {
			t.Errorf("sampleMicros(%q) = %v, want %v", tc.stderr, got, tc.want)
		}
	}
}

func TestReportVerdictAndSpread(t *testing.T) {
	// 5 rounds whose median time ratio is 1.077: throughput 0.929, which meets >= 0.90; 1.15 misses.
	got := report("kafka-4.3.1", []float64{1.17, 0.99, 1.077, 1.02, 1.1}, []float64{1.8e6}, []float64{900, 700, 1100}, 0.90)
	for _, want := range []string{
		"5 rounds: 1.170 0.990 1.077 1.020 1.100",
		"median 1.077, spread 0.990 to 1.170",
		"median 0.929, spread 0.855 to 1.010 (meets the goal >= 0.90)",
		"by the child's clock: median 0.90 ms, spread 0.70 to 1.10 ms",
		"per sample): median 1.80 ms",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if got := report("m", []float64{1.15}, nil, nil, 0.90); !strings.Contains(got, "misses the goal") {
		t.Errorf("a median ratio of 1.15 (throughput 0.87) should miss >= 0.90:\n%s", got)
	}
}
