package lifecycle

import (
	"fmt"
	"math/rand/v2"
)

// Fault is a failure injected into a store, always surfacing as a real error
// from RocksDB.
type Fault int

const (
	// NoFault: the operation runs normally.
	NoFault Fault = iota
	// Transient: the close-time marker write is issued with sync=true and the
	// WAL disabled, which RocksDB rejects per call ("Invalid argument: Sync
	// writes has to enable WAL."); the DB stays healthy.
	Transient
	// Sticky: a malformed write batch is written first, which puts the DB into
	// a failed state ("Corruption: malformed WriteBatch"); the marker write and
	// every later write fail until the DB is reopened. Close still works.
	Sticky
)

func (f Fault) String() string {
	switch f {
	case NoFault:
		return "none"
	case Transient:
		return "transient"
	case Sticky:
		return "sticky"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// ParseFault parses "transient" or "sticky".
func ParseFault(s string) (Fault, error) {
	switch s {
	case "transient":
		return Transient, nil
	case "sticky":
		return Sticky, nil
	}
	return NoFault, fmt.Errorf("unknown close failure kind %q (known: transient, sticky)", s)
}

// Injector decides, deterministically from its seed, which closes fail and
// which opens fail during init. It is not safe for concurrent use.
type Injector struct {
	rng       *rand.Rand
	closeRate float64
	closeKind Fault
	initRate  float64
	// failInits is how many of the next inits fail, set by FailNextInits
	// (a schedule's init_failures), before any draw.
	failInits int
}

// NewScheduledInjector returns an injector for an executor of a schedule
// (package workload), which decides every failure itself: no close fails
// unless its store was armed (Store.ArmCloseFault), and an init fails only as
// FailNextInits says.
func NewScheduledInjector() *Injector { return &Injector{} }

// FailNextInits makes the next n inits fail (0: none), whatever the draws.
func (i *Injector) FailNextInits(n int) {
	if i != nil {
		i.failInits = max(n, 0)
	}
}

// NewInjector returns an injector that fails each close with probability
// closeRate (with the given kind) and each init with probability initRate.
// Rates must be in [0, 1].
func NewInjector(seed uint64, closeRate float64, closeKind Fault, initRate float64) (*Injector, error) {
	if closeRate < 0 || closeRate > 1 {
		return nil, fmt.Errorf("close failure rate %v is outside [0,1]", closeRate)
	}
	if initRate < 0 || initRate > 1 {
		return nil, fmt.Errorf("init failure rate %v is outside [0,1]", initRate)
	}
	if closeRate > 0 && closeKind == NoFault {
		return nil, fmt.Errorf("close failure rate %v needs a failure kind", closeRate)
	}
	return &Injector{
		rng:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		closeRate: closeRate, closeKind: closeKind, initRate: initRate,
	}, nil
}

// NextClose draws the fault for the next close.
func (i *Injector) NextClose() Fault {
	if i == nil || i.closeRate == 0 {
		return NoFault
	}
	if i.rng.Float64() < i.closeRate {
		return i.closeKind
	}
	return NoFault
}

// NextInit draws whether the next open fails during init.
func (i *Injector) NextInit() bool {
	if i != nil && i.failInits > 0 {
		i.failInits--
		return true
	}
	if i == nil || i.initRate == 0 {
		return false
	}
	return i.rng.Float64() < i.initRate
}

// CloseKind is the kind of close failure this injector produces.
func (i *Injector) CloseKind() Fault {
	if i == nil {
		return NoFault
	}
	return i.closeKind
}
