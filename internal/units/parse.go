package units

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Day is 24 hours, the unit "d" of ParseDuration.
const Day = 24 * time.Hour

// ParseDuration reads a Go duration ("90m", "1h30m") optionally led by a
// number of days ("30d", "1.5d", "1d12h"). Bare numbers are rejected: their
// unit would be a guess.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration")
	}
	days, rest := 0.0, s
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		v, err := strconv.ParseFloat(s[:i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a duration such as \"30d\" or \"1h\"", s)
		}
		days, rest = v, s[i+1:]
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil {
			if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
				return 0, fmt.Errorf("%q has no unit (write e.g. \"1h\" or \"30d\")", s)
			}
			return 0, fmt.Errorf("%q is not a duration such as \"30d\" or \"1h\"", s)
		}
		if days != 0 && d < 0 {
			return 0, fmt.Errorf("%q mixes signs", s)
		}
	}
	total := days*float64(Day) + float64(d)
	if total > math.MaxInt64 || total < math.MinInt64 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return time.Duration(total), nil
}

var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "ki": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mi": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gi": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "ti": 1 << 40, "tib": 1 << 40,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
}

// ParseBytes reads a size such as "4GiB", "512MiB", "1.5 GiB" or "1073741824".
// The result is rounded to whole bytes.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.LastIndexAny(t, "0123456789.") + 1
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a size such as \"4GiB\" or \"512MiB\"", s)
	}
	mul, ok := byteUnits[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (B, KiB, MiB, GiB, TiB, kB, MB, GB, TB)", s, t[i:])
	}
	b := math.Round(v * mul)
	if b >= math.MaxInt64 || b <= math.MinInt64 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return int64(b), nil
}

// DurationVar defines a flag read by ParseDuration ("30d", "90m"), as
// flag.DurationVar does for Go durations.
func DurationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationFlag)(p), name, usage)
}

type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = durationFlag(v)
	return nil
}
