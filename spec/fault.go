package spec

import (
	"fmt"
	"strings"
)

// Fault is the kind of close failure a scenario injects. Its string is the
// word used in scenario files and result.json.
type Fault string

// The close failure kinds.
const (
	// FaultTransient fails one close-time marker write; the DB stays healthy.
	FaultTransient Fault = "transient"
	// FaultSticky puts the DB into a failed state: the marker write and every
	// later write fail until the DB is reopened.
	FaultSticky Fault = "sticky"
)

// Faults lists the close failure kinds, in documentation order.
func Faults() []Fault { return []Fault{FaultTransient, FaultSticky} }

// ParseFault parses a close failure kind ("transient" or "sticky"). The
// error names the bad value and the known ones.
func ParseFault(s string) (Fault, error) {
	if f, ok := lookup(s, Faults()); ok {
		return f, nil
	}
	return "", fmt.Errorf("unknown close failure kind %q (known: %s)", s, joinNames(Faults()))
}

// lookup finds s among known names.
func lookup[T ~string](s string, known []T) (T, bool) {
	for _, k := range known {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// joinNames renders names as "a, b, c".
func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}
