package stats

import (
	"fmt"
	"math"
)

// formatBytes renders a byte count for people, scaling by 1024 and keeping
// three significant digits (e.g. "11.2 KiB", "-512 B", "1.50 MiB").
func formatBytes(v float64) string {
	a := math.Abs(v)
	unit, div := "B", 1.0
	switch {
	case a >= 1<<30:
		unit, div = "GiB", 1<<30
	case a >= 1<<20:
		unit, div = "MiB", 1<<20
	case a >= 1<<10:
		unit, div = "KiB", 1<<10
	}
	x := v / div
	switch ax := math.Abs(x); {
	case ax >= 99.95 || div == 1 && ax >= 9.995:
		return fmt.Sprintf("%.0f %s", x, unit)
	case ax >= 9.995:
		return fmt.Sprintf("%.1f %s", x, unit)
	default:
		return fmt.Sprintf("%.2f %s", x, unit)
	}
}

// formatSigned is formatBytes with an explicit sign.
func formatSigned(v float64) string {
	if v >= 0 {
		return "+" + formatBytes(v)
	}
	return formatBytes(v)
}

// formatQty renders v in unit: bytes (unit "" or "B") by formatBytes,
// anything else with three significant digits, e.g. "2.50 FDs".
func formatQty(v float64, unit string) string {
	if unit == "" || unit == "B" {
		return formatBytes(v)
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

// formatSignedQty is formatQty with an explicit sign.
func formatSignedQty(v float64, unit string) string {
	if v >= 0 {
		return "+" + formatQty(v, unit)
	}
	return formatQty(v, unit)
}
