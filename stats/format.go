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

// DescribeEstimate renders e as the verdicts' reasons do: "+11.2 KiB/lifecycle
// [10.9, 11.5] (95%)" (no confidence level when conf is 0).
func DescribeEstimate(e Estimate, conf float64) string { return describe(e, conf) }

// FormatP renders a p-value as the verdicts' reasons do (formatP).
func FormatP(p float64) string { return formatP(p) }

// describe renders "+11.2 KiB/lifecycle [10.9, 11.5] (95%)".
func describe(e Estimate, conf float64) string {
	if !e.Valid {
		return "(no estimate)"
	}
	s := fmt.Sprintf("%s/lifecycle [%s, %s]", units.FormatSignedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High))
	if conf > 0 {
		s += " (" + units.FormatPercent(conf) + ")"
	}
	return s
}

// formatP renders a p-value: "p = 0.032", or "p < 0.0001".
func formatP(p float64) string {
	if p < 1e-4 {
		return "p < 0.0001"
	}
	return fmt.Sprintf("p = %.2g", p)
}
