package lifecycle_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/rocksleak/rocksleak/internal/shm"
)

// TestMain puts the tests' temporary directories (t.TempDir(), where every
// store of these tests lives) on tmpfs, /dev/shm, when it is writable and has
// at least a GiB available, as the tool keeps its stores by default
// (harness.DefaultStateRoot): on tmpfs a store's fsyncs cost nothing, and the
// package's tests take a third of their time on a disk-backed /tmp. RocksDB
// reads its files with pread, so their pages are in no process's RSS either
// way.
func TestMain(m *testing.M) {
	if root, ok := shm.Root(1 << 30); ok {
		if dir, err := os.MkdirTemp(root, "rocksleak-lifecycle-test-"); err == nil {
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
