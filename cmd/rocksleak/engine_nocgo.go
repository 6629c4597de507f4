//go:build !cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rocksleak/rocksleak/schema"
)

// A binary built with CGO_ENABLED=0 has no RocksDB: the commands that read
// results (report, compare, gate, plan, merge, scenarios) work, run and reliability
// exit 2 with errNoRocksDB. See engine_cgo.go for the other half.

// errNoRocksDB is what run and reliability return in a binary built without cgo.
var errNoRocksDB = errors.New("this binary was built without RocksDB (CGO_ENABLED=0), so it cannot run scenarios; " +
	"report, compare, gate, plan, merge and scenarios work. To build one with RocksDB, install a C toolchain and " +
	"librocksdb-dev (./scripts/install-deps.sh) and run `make build` (CGO_ENABLED=1 go build ./cmd/rocksleak)")

func isChild([]string) bool { return false }

func childMain() int { return 2 }

func engineUsageError(err error) bool { return errors.Is(err, errNoRocksDB) }

func runCmd(_ context.Context, _, _ io.Writer, _ []string) error {
	return fmt.Errorf("run: %w", errNoRocksDB)
}

func runScenario(_ context.Context, _, _ io.Writer, _ runOptions, _ string) (*schema.Result, map[string][]schema.Sample, error) {
	return nil, nil, fmt.Errorf("run: %w", errNoRocksDB)
}

func reliabilityCmd(_ context.Context, _, _ io.Writer, _ []string) error {
	return fmt.Errorf("reliability: %w", errNoRocksDB)
}

func rehearseCmd(_ context.Context, _, _ io.Writer, _ []string) error {
	return fmt.Errorf("rehearse: %w", errNoRocksDB)
}

func diskFullCmd(_ context.Context, _, _ io.Writer, _ []string) error {
	return fmt.Errorf("disk-full: %w", errNoRocksDB)
}
