package stats

import (
	"fmt"

	"github.com/rocksleak/rocksleak/internal/units"
)

// formatQty renders v in unit: bytes (unit "" or "B") by units.FormatBytes,
// anything else with three significant digits, e.g. "2.50 FDs".
func formatQty(v float64, unit string) string {
	if unit == "" || unit == "B" {
		return units.FormatBytes(v)
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
