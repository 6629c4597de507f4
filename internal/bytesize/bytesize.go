// Package bytesize renders byte counts for people: scaled by 1024 (KiB, MiB,
// GiB, TiB) with three significant digits. Data files keep raw bytes; only
// what a person reads goes through here.
package bytesize

import (
	"fmt"
	"math"
)

// Format renders v bytes: "1 B", "512 B", "1.50 KiB", "11.2 KiB", "385 KiB",
// "-3.00 MiB". NaN and infinities render as Go prints them.
func Format(v float64) string {
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

// Signed is Format with an explicit sign: "+11.2 KiB", "-512 B".
func Signed(v float64) string {
	if v >= 0 {
		return "+" + Format(v)
	}
	return Format(v)
}
