package harness

import (
	"errors"
	"fmt"
	"math"
	"syscall"

	"github.com/rocksleak/rocksleak/scenarios"
)

// FDsPerDB is how many file descriptors one open store instance holds with
// Kafka 4.3's RocksDB settings (max_open_files = -1, no flush per commit):
// LOCK, LOG, MANIFEST, the WAL file, directory handles and its table files
// (few: memtables flush when full or at close). Measured with timestamped
// window segments (three column families): 8.00 per DB with 512 DBs open
// (`rocksleak run --scenario scale --set tasks=16 --lifecycles 600 --models
// fixed` on Debian 12's RocksDB 7.8.3: at most 4,105 FDs, 9 before any store
// opened), and 8.00 again with the scale scenario's 2,048 DBs open (at most
// 16,410 FDs, `rocksleak run --scenario scale`); 7.06 with plain two-CF
// segments; 10.5–10.9 when every commit flushed. Rounded up to 9, so a
// 20,000-FD limit fits about 2,210 open instances (the scale scenario's 2,048
// need 18,496 by this count).
const FDsPerDB = 9

// ErrLimits means a scenario cannot run within this process's limits; the
// message says what it needs.
var ErrLimits = errors.New("scenario exceeds this machine's limits")

// NeededFDs estimates the file descriptors one model's child needs: every
// live store instance, plus the DBs that failed closes may pin over the run
// (under no-safety-net semantics), plus a margin for the process itself.
func NeededFDs(sc scenarios.Scenario) int {
	open := sc.Tasks * sc.StoresPerTask * sc.LiveSegments()
	pinned := 0
	if sem, _ := sc.Semantics(); sem == scenarios.SemanticsNoSafetyNet && sc.Lifecycles > 0 {
		pinned = int(math.Ceil(float64(sc.Lifecycles) * sc.CloseFailureRate))
	}
	return (open+pinned)*FDsPerDB + 64
}

// RaiseFDLimit raises the soft open-file limit to the hard one (children
// inherit it) and returns the soft limit in force.
func RaiseFDLimit() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	if r.Cur < r.Max {
		r.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
			return 0, err
		}
	}
	return r.Cur, nil
}

// Preflight checks that a scenario fits the open-file limit, after raising
// the soft limit to the hard one.
func Preflight(sc scenarios.Scenario) error {
	limit, err := RaiseFDLimit()
	if err != nil {
		return fmt.Errorf("reading the open-file limit: %w", err)
	}
	need := NeededFDs(sc)
	if uint64(need) > limit {
		return fmt.Errorf("%w: scenario %q keeps up to %d RocksDB instances open (%d tasks × %d stores × %d live segments, plus DBs pinned by failed closes), about %d file descriptors at %d each, but the open-file limit is %d: raise it (ulimit -n %d) or lower tasks, stores_per_task or retention_ms",
			ErrLimits, sc.Name, (need-64)/FDsPerDB, sc.Tasks, sc.StoresPerTask, sc.LiveSegments(), need, FDsPerDB, limit, need)
	}
	return nil
}
