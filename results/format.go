package results

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// fmtCount renders a count (or a slope of counts) with three significant
// digits and no exponent, whole numbers as they are: "67", "1234", "12.5",
// "0.969", "0.00415".
func fmtCount(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	a := math.Abs(v)
	switch {
	case a < 0.0005:
		return "0"
	case a >= 99.95 || math.Abs(v-math.Round(v)) < 1e-9*a:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	// Round to three significant digits first, so that 9.996 becomes 10.0.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	digits := 2 - int(math.Floor(math.Log10(math.Abs(r))))
	return strconv.FormatFloat(r, 'f', max(digits, 0), 64)
}

// fmtQty renders v in unit ("bytes" or "fds").
func fmtQty(v float64, unit string) string {
	if unit == "fds" {
		return fmtCount(v) + " FDs"
	}
	return units.FormatBytes(v)
}

// fmtSignedQty is fmtQty with an explicit sign.
func fmtSignedQty(v float64, unit string) string {
	if v >= 0 {
		return "+" + fmtQty(v, unit)
	}
	return fmtQty(v, unit)
}

// fmtEst renders an estimate with its interval: "+11.2 KiB [10.9 KiB, 11.5 KiB]";
// without an interval "+11.2 KiB (no CI)", or "—" when there is nothing.
func fmtEst(e stats.Estimate, unit string, signed bool) string {
	val := fmtQty(e.Value, unit)
	if signed {
		val = fmtSignedQty(e.Value, unit)
	}
	if !e.Valid {
		if e.Value == 0 {
			return "—"
		}
		return val + " (no CI)"
	}
	return fmt.Sprintf("%s [%s, %s]", val, fmtQty(e.Low, unit), fmtQty(e.High, unit))
}

func fmtR2(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// fmtP renders a p-value: "< 0.0001", "0.032", "0.80".
func fmtP(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

func fmtPercent(f float64) string { return fmtCount(100*f) + "%" }

func fmtSignedPercent(f float64) string {
	if f >= 0 {
		return "+" + fmtPercent(f)
	}
	return fmtPercent(f)
}

// fmtDuration renders nanoseconds with three significant digits: "37.7 ms".
func fmtDuration(ns int64) string {
	v := float64(ns)
	switch a := math.Abs(v); {
	case a >= 1e9:
		return fmtCount(v/1e9) + " s"
	case a >= 1e6:
		return fmtCount(v/1e6) + " ms"
	case a >= 1e3:
		return fmtCount(v/1e3) + " µs"
	}
	return strconv.FormatInt(ns, 10) + " ns"
}

// ledgerString renders live counts by kind: "cf_handle=8 db=4", or "none".
func ledgerString(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v != 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "none"
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// anyRun reports whether pred holds for one of r's runs.
func anyRun(r *schema.Result, pred func(*schema.Run) bool) bool {
	for _, run := range r.Runs {
		if run != nil && pred(run) {
			return true
		}
	}
	return false
}
