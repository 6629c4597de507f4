// Package host reads facts about the machine a run is measured on (CPU, memory,
// kernel, cgroup v2 limits) with gopsutil and /sys/fs/cgroup, and the RSS of a
// process from outside it, and the provenance a run records (Provenance:
// binary, build and machine). Pure Go: it builds without cgo.
package host

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v3/cpu"
	gohost "github.com/shirou/gopsutil/v3/host"
	"github.com/shirou/gopsutil/v3/mem"
	"github.com/shirou/gopsutil/v3/process"

	"github.com/rocksleak/rocksleak/schema"
)

// CgroupRoot is where the cgroup v2 hierarchy is mounted.
const CgroupRoot = "/sys/fs/cgroup"

// Facts reads the machine's facts. A fact that cannot be read is left at its
// zero value: Facts never fails, a result is written either way.
func Facts() schema.Machine {
	var m schema.Machine
	if infos, err := cpu.Info(); err == nil && len(infos) > 0 {
		m.CPUModel = strings.TrimSpace(infos[0].ModelName)
	}
	if n, err := cpu.Counts(true); err == nil {
		m.LogicalCPUs = n
	}
	if vm, err := mem.VirtualMemory(); err == nil {
		m.MemTotal, m.MemAvailable = int64(vm.Total), int64(vm.Available)
	}
	if hi, err := gohost.Info(); err == nil {
		m.Kernel = hi.KernelVersion
		m.Platform = strings.TrimSpace(hi.Platform + " " + hi.PlatformVersion)
	}
	dir := cgroupDir(CgroupRoot, "/proc/self/cgroup")
	m.CgroupMemoryMax = memoryMax(dir)
	m.CgroupCPUs = cpuMax(dir)
	return m
}

// cgroupDir is the cgroup v2 directory of the process whose /proc/PID/cgroup
// is procFile ("0::/path"), under root; root itself when the path cannot be
// read (inside a container the process's cgroup is usually mounted as root).
func cgroupDir(root, procFile string) string {
	b, err := os.ReadFile(procFile)
	if err != nil {
		return root
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			d := filepath.Join(root, p)
			if _, err := os.Stat(filepath.Join(d, "memory.max")); err == nil {
				return d
			}
		}
	}
	return root
}

// memoryMax is dir/memory.max in bytes; 0 for "max" or unreadable.
func memoryMax(dir string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, "memory.max"))
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0 // "max"
	}
	return v
}

// cpuMax is dir/cpu.max ("QUOTA PERIOD") as CPUs; 0 for "max" or unreadable.
func cpuMax(dir string) float64 {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	q, err1 := strconv.ParseFloat(f[0], 64)
	p, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || p <= 0 {
		return 0
	}
	return q / p
}

// MemoryBudget is the memory a run may take: the smaller of the memory
// available now and the cgroup's memory.max (when set). 0 when neither is
// known.
func MemoryBudget(m schema.Machine) int64 {
	b := m.MemAvailable
	if m.CgroupMemoryMax > 0 && (b == 0 || m.CgroupMemoryMax < b) {
		b = m.CgroupMemoryMax
	}
	return b
}

// RSS is the resident set size of process pid in bytes, read from outside
// (/proc/PID/statm via gopsutil).
func RSS(pid int) (int64, error) {
	p, err := process.NewProcess(int32(pid))
	if err != nil {
		return 0, err
	}
	mi, err := p.MemoryInfo()
	if err != nil {
		return 0, err
	}
	return int64(mi.RSS), nil
}
