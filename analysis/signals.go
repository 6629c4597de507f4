package analysis

import "github.com/rocksleak/rocksleak/schema"

// The signals every model's samples are fitted on, in report order.
const (
	SignalNativeHeap = "native_heap"
	SignalRSS        = "rss"
	SignalGoHeap     = "go_heap"
	SignalFDs        = "fds"
)

// Signals lists the fitted signals in report order: the registry's order.
func Signals() []string {
	keys := make([]string, len(registry))
	for i, d := range registry {
		keys[i] = d.Key
	}
	return keys
}

// SignalInfo describes a signal for people: the one place a signal is named.
type SignalInfo struct {
	Key   string // as in result.json and samples.csv: "native_heap"
	Name  string // in a sentence or a table cell: "native heap"
	Title string // a heading: "Native heap in use (C allocator)"
	// Unit is the unit of the signal's values as result.json's fits state it:
	// "bytes", or "fds" for open file descriptors.
	Unit string
	// Field is the sample field (schema.Sample's JSON name, a samples.csv
	// column) the signal's value is read from, before the instrument's
	// share is taken off (see value).
	Field string
	// Plot is the signal's figure in the report; nil: not plotted.
	Plot *SignalPlot
	// Gate names the gate metrics of the signal's slopes; nil: no gate
	// metric.
	Gate *SignalGate
	// value reads the signal from a sample, in Unit (SignalValue).
	value func(schema.Sample) float64
	// statsUnit is the unit stats renders in its reasons ("" for bytes).
	statsUnit string
	// restoreRegressor says the signal's fits take restored records as a
	// regressor (stats.Input.RestoredRecords). True for RSS only: a restore
	// (a window store replaying its changelog from stream time −1) puts
	// dozens of segment lifecycles into one sample interval, at an RSS cost
	// per lifecycle unlike the ordinary ones' and changing as the replay
	// grows; without the regressor, where the restores fall tilts RSS's
	// per-lifecycle slope. The native heap's slope is not tilted by them
	// (its spread across seeds is within its SE without it). Measured on
	// two sets of 20 seeds of kafka-20616 (README, "RSS: restores and
	// bursts").
	restoreRegressor bool
	// bursty says the signal grows in bursts (RSS: the allocator's
	// resident high-water rises in steps), so its interval is widened to a
	// batch-means one where that is wider (OptionsFor): a safeguard for
	// an error model the likelihood gets wrong, measured on real RSS. The
	// error model itself allows for bursts (RegressRobust's integrated
	// family) for every signal.
	bursty bool
	// calibrated says the signal's interval is the calibrated one
	// (stats.IntervalCalibrated; OptionsFor): true for the native heap, whose
	// RegressRobust interval was twice as wide as its spread across seeds.
	calibrated bool
}

// SignalPlot is a signal's figure: the signal in MiB against lifecycles, every
// sample and the Total fit (results.Plots).
type SignalPlot struct {
	File   string // the PNG's file name in the run's directory: "rss.png"
	Title  string // the figure's title
	YLabel string // the y axis' label, in MiB
}

// SignalGate names a signal's gate metrics: "<Prefix>_growth_per_lifecycle"
// (in Unit/lifecycle) and, when PerMillion, "<Prefix>_growth_per_million_records"
// (gate's metric catalogue reads them).
type SignalGate struct {
	Prefix     string
	PerMillion bool
}

// registry is the one place a signal is declared, in report order: what it is
// called, the sample field it is read from, how it is fitted, its plot and its
// gate metrics. Adding a signal is an entry here (docs/developing.md, "How to
// add a signal"); TestSignalRegistry checks each entry's field, plot and gate.
var registry = []SignalInfo{
	{Key: SignalNativeHeap, Name: "native heap", Title: "Native heap in use (C allocator)", Unit: "bytes",
		Field: "native_heap", calibrated: true,
		// The code under test's native heap: what the instrument's runtime
		// allocated from the same allocator (runtime_malloc, the JVM's own
		// mallocs) is not the code's.
		value: func(s schema.Sample) float64 { return float64(s.CodeNativeHeap()) },
		Plot: &SignalPlot{File: "native_heap.png", Title: "Native heap in use (C allocator) against lifecycles",
			YLabel: "native heap (MiB)"},
		Gate: &SignalGate{Prefix: "native", PerMillion: true}},
	{Key: SignalRSS, Name: "RSS", Title: "Resident set size (RSS) of the code under test, less the instrument's runtime",
		Unit: "bytes", Field: "rss", restoreRegressor: true, bursty: true,
		// The code under test's RSS: what the instrument's runtime holds
		// (runtime_bytes) is not the code's (the whole RSS when not read).
		value: func(s schema.Sample) float64 { return float64(s.CodeRSS()) },
		Plot:  &SignalPlot{File: "rss.png", Title: "Resident set size against lifecycles", YLabel: "RSS (MiB)"},
		Gate:  &SignalGate{Prefix: "rss", PerMillion: true}},
	{Key: SignalGoHeap, Name: "Go heap", Title: "Go heap in use", Unit: "bytes", Field: "go_heap",
		value: func(s schema.Sample) float64 { return float64(s.GoHeap) }},
	{Key: SignalFDs, Name: "FDs", Title: "Open file descriptors", Unit: "fds", statsUnit: "FDs", Field: "fds",
		value: func(s schema.Sample) float64 { return float64(s.FDs) },
		Gate:  &SignalGate{Prefix: "fd"}},
}

var signalInfo = func() map[string]SignalInfo {
	m := make(map[string]SignalInfo, len(registry))
	for _, d := range registry {
		m[d.Key] = d
	}
	return m
}()

// Describe returns how to name sig; an unknown signal is named by its key,
// in bytes.
func Describe(sig string) SignalInfo {
	if d, ok := signalInfo[sig]; ok {
		return d
	}
	return SignalInfo{Key: sig, Name: sig, Title: sig, Unit: "bytes"}
}

// Registered lists every signal's description in report order (the
// registry): the plots and the gate's metrics are read from it.
func Registered() []SignalInfo { return append([]SignalInfo(nil), registry...) }

// SignalValue is sample s's value of signal (one of [Signals]), in the signal's raw unit.
func SignalValue(s schema.Sample, signal string) float64 {
	d, ok := signalInfo[signal]
	if !ok {
		panic("unknown signal " + signal)
	}
	return d.value(s)
}
