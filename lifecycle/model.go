package lifecycle

import "github.com/rocksleak/rocksleak/spec"

// The ownership vocabulary lives in package spec; these names keep lifecycle's
// API (used by harness) unchanged.

// Model is an ownership model: a named set of fixes (spec.Model).
type Model = spec.Model

// Semantics says what the DB's close does with handles the accessor skipped
// (spec.Semantics).
type Semantics = spec.Semantics

// The named models (see package spec for the Kafka code each stands for).
var (
	Leaky          = spec.Leaky
	Fixed          = spec.Fixed
	OptionsFix     = spec.OptionsFix
	FinallyFix     = spec.FinallyFix
	ReadOptionsFix = spec.ReadOptionsFix
	AllFixes       = spec.AllFixes
)

// The semantics.
const (
	// RocksJava: the DB's close releases the handles it handed out that are
	// still owned (released late), then closes. The default.
	RocksJava = spec.RocksJava
	// NoSafetyNet: a skipped handle pins its DB, which stays open.
	NoSafetyNet = spec.NoSafetyNet
)

// ModelByName returns the named model, or an error naming the bad value and
// the known names (spec.ParseModel).
func ModelByName(name string) (Model, error) { return spec.ParseModel(name) }
