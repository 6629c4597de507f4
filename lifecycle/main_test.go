package lifecycle_test

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

// TestMain puts the tests' temporary directories (t.TempDir(), where every
// store of these tests lives) on tmpfs, /dev/shm, when it is writable and has
// at least a GiB available, as the tool keeps its stores by default
// (harness.DefaultStateRoot): on tmpfs a store's fsyncs cost nothing, and the
// package's tests take a third of their time on a disk-backed /tmp. RocksDB
// reads its files with pread, so their pages are in no process's RSS either
// way.
func TestMain(m *testing.M) {
	const shm = "/dev/shm"
	var st syscall.Statfs_t
	if err := syscall.Statfs(shm, &st); err == nil && st.Bavail*uint64(st.Bsize) >= 1<<30 {
		if dir, err := os.MkdirTemp(shm, "rocksleak-lifecycle-test-"); err == nil {
			if err := os.Setenv("TMPDIR", dir); err != nil {
				fmt.Fprintln(os.Stderr, "lifecycle tests: TMPDIR:", err)
			}
			code := m.Run()
			_ = os.RemoveAll(dir)
			os.Exit(code)
		}
	}
	os.Exit(m.Run())
}
