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
	// Pin is the former name of NoSafetyNet.
	//
	// Deprecated: use NoSafetyNet.
	Pin = spec.NoSafetyNet
	// SafetyNet is the former name of the semantics RocksJava replaces (same
	// effect: skipped handles are released late and the DB closes).
	//
	// Deprecated: use RocksJava.
	SafetyNet = spec.RocksJava
)

// Models returns the named models in a fixed order (spec.Models).
func Models() []Model { return spec.Models() }

// ModelByName returns the named model, or an error naming the bad value and
// the known names (spec.ParseModel).
func ModelByName(name string) (Model, error) { return spec.ParseModel(name) }

// ParseSemantics validates a semantics name; "" is RocksJava, "pin" and
// "safety-net" are accepted as aliases (spec.ParseSemantics).
func ParseSemantics(s string) (Semantics, error) { return spec.ParseSemantics(s) }
