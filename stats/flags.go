package stats

// Flag is a kind of warning that undermines a per-lifecycle fit: while a
// Fit carries one, DecideSignals calls no verdict and says what would
// settle it.
type Flag string

// The flags FitSignal raises.
const (
	FlagTooFew           Flag = "too-few-samples"    // fewer than MinSamples after the warm-up cut
	FlagWarmupAtLimit    Flag = "warmup-at-limit"    // the warm-up cut reached MaxWarmupFraction: warm-up may not be over
	FlagSlopeNotConstant Flag = "slope-not-constant" // the two halves of the used samples differ in slope
	FlagRandomWalk       Flag = "random-walk"        // the residuals behave like a random walk and the interval method does not model it (IntervalCochraneOrcutt)
	// FlagRandomWalkModelled is informational, not blocking: IntervalRobust
	// found a random-walk component in the residuals and its error model
	// includes one (the interval is honest, only wider).
	FlagRandomWalkModelled Flag = "random-walk-modelled"
	FlagStep               Flag = "level-shift" // a one-time level shift dominates the series
	// FlagSlows: the growth slows over the used samples (a significantly
	// negative quadratic term): it may level off, so its slope is not a
	// per-lifecycle cost. It blocks a leak call only (DecideSignals): a
	// slowing growth whose interval lies below its floor is still no leak.
	FlagSlows Flag = "growth-slows"
)

// addFlag appends k unless present.
func addFlag(fs []Flag, k Flag) []Flag {
	for _, f := range fs {
		if f == k {
			return fs
		}
	}
	return append(fs, k)
}

// HasFlag reports whether f carries k.
func (f Fit) HasFlag(k Flag) bool {
	for _, g := range f.Flags {
		if g == k {
			return true
		}
	}
	return false
}
