package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// ErrParse is wrapped by the error for a benchmark line that cannot be parsed.
var ErrParse = errors.New("cannot parse benchmark line")

// Result is one benchmark result line: one count of one benchmark.
type Result struct {
	Pkg    string             // from the preceding "pkg:" line
	Name   string             // e.g. "BenchmarkLifecycle/bare", without the -GOMAXPROCS suffix
	N      int                // iterations
	Values map[string]float64 // by unit: "ns/op", "B/lifecycle", ...
}

// procsSuffix is the "-<GOMAXPROCS>" go test appends to a benchmark name.
var procsSuffix = regexp.MustCompile(`-\d+$`)

// Parse reads the raw output of go test -bench. Lines other than "pkg:" lines
// and benchmark results (PASS, ok, goos, log output) are skipped. A line that
// starts like a result ("Benchmark<name> <iterations>") but does not parse is
// an error wrapping ErrParse with the line number.
func Parse(r io.Reader) ([]Result, error) {
	var out []Result
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if p, ok := strings.CutPrefix(text, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		f := strings.Fields(text)
		if len(f) < 2 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			continue // e.g. a "BenchmarkX" line of -v output, not a result
		}
		if len(f)%2 != 0 {
			return nil, fmt.Errorf("%w: line %d: value without a unit: %q", ErrParse, line, text)
		}
		res := Result{Pkg: pkg, Name: procsSuffix.ReplaceAllString(f[0], ""), N: n, Values: map[string]float64{}}
		for i := 2; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %w", ErrParse, line, err)
			}
			res.Values[f[i+1]] = v
		}
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
