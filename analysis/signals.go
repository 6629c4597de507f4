package analysis

import "github.com/rocksleak/rocksleak/schema"

// The signals every model's samples are fitted on, in report order.
const (
	SignalNativeHeap = "native_heap"
	SignalRSS        = "rss"
	SignalGoHeap     = "go_heap"
	SignalFDs        = "fds"
)

// Signals lists the fitted signals in report order.
func Signals() []string { return []string{SignalNativeHeap, SignalRSS, SignalGoHeap, SignalFDs} }

// SignalInfo describes a signal for people: the one place a signal is named.
type SignalInfo struct {
	Key   string // as in result.json and samples.csv: "native_heap"
	Name  string // in a sentence or a table cell: "native heap"
	Title string // a heading: "Native heap in use (C allocator)"
	// Unit is the unit of the signal's values as result.json's fits state it:
	// "bytes", or "fds" for open file descriptors.
	Unit string
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

var signalInfo = map[string]SignalInfo{
	SignalNativeHeap: {Key: SignalNativeHeap, Name: "native heap", Title: "Native heap in use (C allocator)", Unit: "bytes",
		calibrated: true},
	SignalRSS: {Key: SignalRSS, Name: "RSS", Title: "Resident set size (RSS) of the code under test, less the instrument's runtime",
		Unit: "bytes", restoreRegressor: true, bursty: true},
	SignalGoHeap: {Key: SignalGoHeap, Name: "Go heap", Title: "Go heap in use", Unit: "bytes"},
	SignalFDs:    {Key: SignalFDs, Name: "FDs", Title: "Open file descriptors", Unit: "fds", statsUnit: "FDs"},
}

// Describe returns how to name sig; an unknown signal is named by its key,
// in bytes.
func Describe(sig string) SignalInfo {
	if d, ok := signalInfo[sig]; ok {
		return d
	}
	return SignalInfo{Key: sig, Name: sig, Title: sig, Unit: "bytes"}
}

// SignalValue is sample s's value of signal (one of [Signals]), in the signal's raw unit.
func SignalValue(s schema.Sample, signal string) float64 {
	switch signal {
	case SignalNativeHeap:
		// The code under test's native heap: what the instrument's runtime
		// allocated from the same allocator (runtime_malloc, the JVM's own
		// mallocs) is not the code's.
		return float64(s.CodeNativeHeap())
	case SignalRSS:
		// The code under test's RSS: what the instrument's runtime holds
		// (runtime_bytes) is not the code's (the whole RSS when not read).
		return float64(s.CodeRSS())
	case SignalGoHeap:
		return float64(s.GoHeap)
	case SignalFDs:
		return float64(s.FDs)
	}
	panic("unknown signal " + signal)
}
