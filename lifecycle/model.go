package lifecycle

import (
	"fmt"
	"strings"
)

// Model is an ownership model: how a store owns its offsets column-family
// options and how its accessor releases handles when the close-time marker
// write fails. The two flags are the two fixes of KAFKA-20616.
type Model struct {
	Name string
	// OwnsOffsetsOptions: the store keeps the offsets-CF options it creates and
	// destroys them on close and on init failure; the options are built with no
	// block cache (Kafka 4.3.1). Without it a fresh default options object (with
	// its implicit 8 MB LRU cache) is created on every open and never destroyed
	// (Kafka 4.3.0).
	OwnsOffsetsOptions bool
	// FinallyRelease: the accessor releases every handle whatever the marker
	// write did (the nested finally blocks of 4.3.1). Without it a failed marker
	// write skips every handle release (4.3.0).
	FinallyRelease bool
}

// The four models, by name.
var (
	Leaky      = Model{Name: "leaky"}
	Fixed      = Model{Name: "fixed", OwnsOffsetsOptions: true, FinallyRelease: true}
	OptionsFix = Model{Name: "options-fix", OwnsOffsetsOptions: true}
	FinallyFix = Model{Name: "finally-fix", FinallyRelease: true}
)

// Models returns the four models in a fixed order.
func Models() []Model { return []Model{Leaky, Fixed, OptionsFix, FinallyFix} }

// ModelByName returns the named model, or an error listing the known names.
func ModelByName(name string) (Model, error) {
	var names []string
	for _, m := range Models() {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Model{}, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(names, ", "))
}

// Semantics says what a skipped handle release does. Debian's RocksDB aborts the
// process when a DB is closed while a column-family handle is alive, so a skipped
// release cannot be "skip the destroy, close the DB anyway".
type Semantics string

const (
	// Pin: a handle that was not released pins its DB; the DB is not closed and
	// stays open with everything it holds (memtables, table readers, LOCK, FDs).
	Pin Semantics = "pin"
	// SafetyNet: the store releases skipped handles just before closing the DB,
	// as RocksJava does for the handles it owns, and the ledger records them as
	// released late.
	SafetyNet Semantics = "safety-net"
)

// ParseSemantics validates a semantics name; "" means Pin.
func ParseSemantics(s string) (Semantics, error) {
	switch Semantics(s) {
	case "", Pin:
		return Pin, nil
	case SafetyNet:
		return SafetyNet, nil
	}
	return "", fmt.Errorf("unknown leak semantics %q (known: pin, safety-net)", s)
}
