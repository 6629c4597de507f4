package main

import (
	"errors"
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"
)

// ErrParse is wrapped by the error for a benchmark line that cannot be parsed.
var ErrParse = errors.New("cannot parse benchmark line")

// Result is one benchmark result line: one count of one benchmark.
type Result struct {
	Pkg    string             // from the preceding "pkg:" line
	Name   string             // e.g. "BenchmarkLifecycle/bare", without the -GOMAXPROCS suffix
	N      int                // iterations
	Values map[string]float64 // by unit as written: "ns/op", "B/lifecycle", ...
}

// Parse reads the raw output of go test -bench with golang.org/x/perf/benchfmt
// (the reader benchstat uses). Lines other than configuration lines and
// benchmark results (PASS, ok, log output) are skipped. A line that starts like
// a result ("Benchmark<name> <iterations>") but does not parse is an error
// wrapping ErrParse with the line number.
//
// Values are keyed by the unit as written, with the value as written: benchfmt
// tidies "ns/op" to "sec/op" (and MB/s to B/s), and Parse undoes that from the
// original value and unit the reader keeps.
func Parse(r io.Reader) ([]Result, error) {
	var out []Result
	br := benchfmt.NewReader(r, "")
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("%w: line %d: %s", ErrParse, rec.Line, rec.Msg)
		case *benchfmt.Result:
			// The name without its -GOMAXPROCS suffix, as the benchmark named it.
			base, parts := rec.Name.Parts()
			name := "Benchmark" + string(base)
			for _, p := range parts {
				if len(p) > 0 && p[0] == '-' {
					continue // the GOMAXPROCS part
				}
				name += string(p)
			}
			res := Result{Pkg: rec.GetConfig("pkg"), Name: name, N: rec.Iters, Values: map[string]float64{}}
			for _, v := range rec.Values {
				unit, val := v.Unit, v.Value
				if v.OrigUnit != "" {
					unit, val = v.OrigUnit, v.OrigValue
				}
				res.Values[unit] = val
			}
			out = append(out, res)
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
