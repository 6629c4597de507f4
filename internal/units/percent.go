package units

import "strconv"

// FormatPercent renders a fraction as a percentage to six significant
// digits, with the sign: 0.99 → "99%", 0.9975 → "99.75%", 0.005 → "0.5%",
// 0.99951 → "99.951%". It is how confidence levels and tail probabilities
// are printed in reasons, reports and tables.
func FormatPercent(fraction float64) string {
	return strconv.FormatFloat(100*fraction, 'g', 6, 64) + "%"
}
