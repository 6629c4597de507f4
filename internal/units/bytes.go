// Package units is the one grammar for sizes and durations that people write
// (scenario files, topologies, flags) and the one way byte counts are
// rendered for people. Data files keep raw units; only what a person writes
// or reads goes through here.
//
// Sizes: a plain number of bytes or a number with a unit: B; KiB, MiB, GiB,
// TiB (also Ki, Mi, Gi, Ti, K, M, G, T: powers of 1024); kB, MB, GB, TB
// (powers of 1000); case-insensitive. Durations: a Go duration ("90m",
// "1h30m") optionally led by a number of days ("30d", "1.5d", "1d12h"); bare
// numbers are rejected because their unit would be a guess.
//
// Byte counts render scaled by 1024 (KiB, MiB, GiB, TiB) with three
// significant digits.
package units

import (
	"fmt"
	"math"
)

// FormatBytes renders v bytes: "1 B", "512 B", "1.50 KiB", "11.2 KiB", "385 KiB",
// "-3.00 MiB". NaN and infinities render as Go prints them.
func FormatBytes(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	a := math.Abs(v)
	unit, div := "B", 1.0
	switch {
	case a >= 1<<40:
		unit, div = "TiB", 1<<40
	case a >= 1<<30:
		unit, div = "GiB", 1<<30
	case a >= 1<<20:
		unit, div = "MiB", 1<<20
	case a >= 1<<10:
		unit, div = "KiB", 1<<10
	}
	x := v / div
	switch ax := math.Abs(x); {
	case x == 0:
		return "0 B"
	case ax >= 99.95 || div == 1:
		return fmt.Sprintf("%.0f %s", x, unit)
	case ax >= 9.995:
		return fmt.Sprintf("%.1f %s", x, unit)
	default:
		return fmt.Sprintf("%.2f %s", x, unit)
	}
}

// FormatSignedBytes is FormatBytes with an explicit sign: "+11.2 KiB", "-512 B".
func FormatSignedBytes(v float64) string {
	if v >= 0 {
		return "+" + FormatBytes(v)
	}
	return FormatBytes(v)
}
