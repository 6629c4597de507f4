// Command heapprofchild is the child of package measure's heap-profile known-answer test. It runs a loop that leaks
// a known number of bytes per iteration from a C function of known name (mode "leak") or only allocates and frees
// (mode "churn"), dumps jemalloc's heap profile after the warm-up and at the end (when MALLOC_CONF is set), and
// writes the measured loop's iterations per second to <dir>/rate.
//
// The test builds it with go build rather than re-executing the test binary: go test links without a symbol table
// (-s), and the dumps must symbolize against the binary.
//
//	heapprofchild leak|churn <dir> <warm-up iterations> <measured iterations> <leak bytes> <churn bytes>
//	heapprofchild probe <dir>   (prints DumpHeapProfile's error, or <nil>)
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rocksleak/rocksleak/measure"
	"github.com/rocksleak/rocksleak/measure/internal/testalloc"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "heapprofchild:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 2 && args[0] == "probe" {
		// Report what DumpHeapProfile says in this process, on stdout.
		fmt.Println(measure.DumpHeapProfile(filepath.Join(args[1], "probe.heap")))
		return nil
	}
	if len(args) != 6 {
		return fmt.Errorf("want 6 arguments, got %d", len(args))
	}
	mode, dir := args[0], args[1]
	var n [4]int
	for i := range n {
		v, err := strconv.Atoi(args[2+i])
		if err != nil {
			return err
		}
		n[i] = v
	}
	warmup, measured, leak, churn := n[0], n[1], n[2], n[3]
	iter := func() {
		if mode == "leak" {
			testalloc.Leak(leak)
		}
		testalloc.Churn(churn)
		testalloc.Churn(48)
	}
	for range warmup {
		iter()
	}
	profiled := os.Getenv("MALLOC_CONF") != ""
	if profiled {
		if err := measure.DumpHeapProfile(filepath.Join(dir, "warm.heap")); err != nil {
			return err
		}
	}
	start := time.Now()
	for range measured {
		iter()
	}
	rate := float64(measured) / time.Since(start).Seconds()
	if profiled {
		if err := measure.DumpHeapProfile(filepath.Join(dir, "end.heap")); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "rate"), []byte(strconv.FormatFloat(rate, 'f', 0, 64)), 0o644)
}
