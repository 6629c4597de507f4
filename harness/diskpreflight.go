package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/scenarios"
)

// Disk a store instance needs, for NeededDisk: disk blocks, not file sizes.
const (
	// DiskManifestPrealloc is the MANIFEST's preallocation: RocksDB's
	// DBOptions::manifest_preallocation_size, 4 MiB by default, which Kafka
	// 4.3 leaves as it is. Every open DB fallocates it for its MANIFEST (on
	// ext4 and on tmpfs alike), though the MANIFEST holds a few hundred bytes:
	// issue 44 counted 26 MANIFESTs holding 98,308 KiB of blocks for 4,795 B of
	// content. It is most of what a run occupies.
	DiskManifestPrealloc = 4 << 20
	// DiskPerInstance is the other files one open RocksDB instance keeps
	// beside its data with Kafka 4.3's settings, in blocks: two OPTIONS files
	// (about 7 KB each), the LOG (info log level ERROR), LOCK, IDENTITY,
	// CURRENT and an empty WAL, each at least one 4 KiB block; rounded up to
	// 64 KiB.
	DiskPerInstance = 64 << 10
	// DiskPerRecordOverhead is the bytes a record takes on disk beyond its
	// value: its key (10 bytes here), a window store's 8-byte timestamp and
	// sequence number, and the WAL and SST framing around them, rounded up.
	DiskPerRecordOverhead = 64
	// memtableBudget is what one instance can hold in its WAL before a memtable
	// flush: Kafka's 16 MB × 3 write buffers of the data column family.
	memtableBudget = 3 * 16 << 20
)

// NeededDisk estimates the disk blocks one model's child occupies under its
// state directory at its peak: every instance open at once takes
// DiskManifestPrealloc + DiskPerInstance, plus twice the records it holds (in
// the WAL, and again in the SST written when the memtable flushes at close,
// before the WAL is dropped), each its value plus DiskPerRecordOverhead. Open
// at once: tasks × stores per task × (live segments + 1) for a window store
// (a store opens its next segment before it drops its oldest), tasks × stores
// per task otherwise. An instance holds the records written over its life: a
// window segment's steps (retention plus one interval), a key-value store's
// distinct keys; never more than its memtables (memtableBudget) in the WAL. A
// no-safety-net scenario adds the DBs failed closes pin. It is an estimate
// meant to err high, checked against blocks (`du -s --block-size=1`, not file
// sizes): kafka-20616 is estimated at 132 MiB and peaked at 101 MiB of blocks
// on a 256 MiB ext4 (docs/faults.md).
func NeededDisk(sc scenarios.Scenario) int64 {
	stores := int64(sc.Tasks) * int64(sc.StoresPerTask)
	open := stores
	perRecord := int64(sc.ValueBytes) + DiskPerRecordOverhead
	var records int64
	switch sc.Store {
	case scenarios.StoreWindow:
		open = stores * int64(sc.LiveSegments()+1)
		steps := (sc.RetentionMs + sc.SegmentInterval() + sc.StepMs - 1) / max(sc.StepMs, 1)
		records = min(steps*int64(sc.RecordsPerStep)/int64(sc.LiveSegments()), int64(sc.KeySpread)*steps)
	default:
		records = int64(sc.KeySpread)
	}
	data := min(records*perRecord, memtableBudget)
	instance := DiskManifestPrealloc + DiskPerInstance + 2*data
	need := open * instance
	if sem, _ := sc.Semantics(); sem == scenarios.SemanticsNoSafetyNet && sc.Lifecycles > 0 {
		need += int64(float64(sc.Lifecycles)*sc.CloseFailureRate+1) * instance
	}
	return need
}

// ErrStateDir means the state directory cannot hold the run: it is missing,
// not a directory, not writable, or has less space free than NeededDisk.
var ErrStateDir = errors.New("state directory unusable")

// CheckStateDir checks, before anything runs, that dir exists, is a directory
// this process can create files in, and (unless need ≤ 0) has at least need
// bytes available to it. The error says which and what to do.
func CheckStateDir(dir string, need int64) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %s does not exist: create it (mkdir -p %s) or give another directory", ErrStateDir, dir, dir)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrStateDir, err)
	case !st.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrStateDir, dir)
	}
	if err := probeWritable(dir); err != nil {
		return fmt.Errorf("%w: %s is not writable: %w", ErrStateDir, dir, err)
	}
	if need <= 0 {
		return nil
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return fmt.Errorf("%w: reading the free space of %s: %w", ErrStateDir, dir, err)
	}
	if free := int64(fs.Bavail) * fs.Bsize; free < need {
		return fmt.Errorf("%w: %s has %s free, but the scenario needs about %s (open instances × per-instance disk, see docs/faults.md): free some space, give a larger directory, or lower tasks, stores_per_task or retention_ms",
			ErrStateDir, dir, units.FormatBytes(float64(free)), units.FormatBytes(float64(need)))
	}
	return nil
}

// ErrOutDir means the output directory cannot be written.
var ErrOutDir = errors.New("output directory not writable")

// CheckOutDir checks, before anything runs, that the output directory dir
// could be created: its nearest existing ancestor is a directory this process
// can create files in. It creates nothing that outlives the check.
func CheckOutDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOutDir, err)
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%w: %s is not a directory", ErrOutDir, p)
			}
			if err := probeWritable(p); err != nil {
				return fmt.Errorf("%w: cannot create %s in %s: %w", ErrOutDir, dir, p, err)
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) || p == filepath.Dir(p) {
			return fmt.Errorf("%w: %w", ErrOutDir, err)
		}
	}
}

// probeWritable creates and removes a directory in dir.
func probeWritable(dir string) error {
	p, err := os.MkdirTemp(dir, ".rocksleak-probe-")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	return os.Remove(p)
}
