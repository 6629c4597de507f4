package host

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

// TestFactsOfThisMachine: the facts read here agree with what the Go runtime
// says of this machine.
func TestFactsOfThisMachine(t *testing.T) {
	m := Facts()
	assert.NotEmpty(t, m.CPUModel)
	assert.GreaterOrEqual(t, m.LogicalCPUs, runtime.NumCPU(), "NumCPU is limited by the affinity mask")
	assert.Positive(t, m.MemTotal)
	assert.Positive(t, m.MemAvailable)
	assert.LessOrEqual(t, m.MemAvailable, m.MemTotal)
	assert.NotEmpty(t, m.Kernel)
	assert.GreaterOrEqual(t, m.CgroupMemoryMax, int64(0))
}

func TestCgroupFiles(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "job.slice")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "memory.max"), []byte("1073741824\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "cpu.max"), []byte("150000 100000\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "memory.max"), []byte("max\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "cpu.max"), []byte("max 100000\n"), 0o644))
	proc := filepath.Join(root, "cgroup")
	require.NoError(t, os.WriteFile(proc, []byte("0::/job.slice\n"), 0o644))

	dir := cgroupDir(root, proc)
	assert.Equal(t, sub, dir)
	assert.Equal(t, int64(1<<30), memoryMax(dir))
	assert.InDelta(t, 1.5, cpuMax(dir), 1e-12)
	assert.Zero(t, memoryMax(root), `"max" is no limit`)
	assert.Zero(t, cpuMax(root), `"max" is no limit`)
	assert.Equal(t, root, cgroupDir(root, filepath.Join(root, "missing")))
}

func TestMemoryBudget(t *testing.T) {
	assert.Equal(t, int64(8<<30), MemoryBudget(schema.Machine{MemAvailable: 8 << 30}))
	assert.Equal(t, int64(1<<30), MemoryBudget(schema.Machine{MemAvailable: 8 << 30, CgroupMemoryMax: 1 << 30}))
	assert.Equal(t, int64(2<<30), MemoryBudget(schema.Machine{MemAvailable: 2 << 30, CgroupMemoryMax: 4 << 30}))
	assert.Zero(t, MemoryBudget(schema.Machine{}))
}

// TestRSSFromOutside: this process's RSS read as another process would, and
// an error for a process that does not exist.
func TestRSSFromOutside(t *testing.T) {
	rss, err := RSS(os.Getpid())
	require.NoError(t, err)
	assert.Greater(t, rss, int64(1<<20))
	_, err = RSS(1 << 30)
	assert.Error(t, err, "no such process")
}
