package host

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/rocksleak/rocksleak/schema"
)

// Provenance fills in what the running binary and host know about
// themselves, the machine's facts (Facts) included. gitCommit is the commit the binary was built from (set at link
// time); when empty the build's VCS stamp is used, or "unknown".
func Provenance(seed int64, gitCommit, command string) schema.Provenance {
	p := schema.Provenance{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		CPUs: runtime.NumCPU(), Seed: seed, GitCommit: gitCommit, Command: command,
		GrocksdbVersion: "unknown"}
	m := Facts()
	p.Machine = &m
	if h, err := os.Hostname(); err == nil {
		p.Host = h
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/linxGnu/grocksdb" {
				p.GrocksdbVersion = d.Version
			}
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && p.GitCommit == "" {
				p.GitCommit = s.Value
			}
		}
	}
	if p.GitCommit == "" {
		p.GitCommit = "unknown"
	}
	return p
}
