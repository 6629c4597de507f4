// Package shm finds the tmpfs where rocksleak keeps its stores' state: /dev/shm, when it is a writable directory.
// On tmpfs a store's fsyncs cost nothing, so a lifecycle's time is RocksDB's own work.
package shm

import (
	"os"
	"syscall"
)

// Path is the tmpfs directory Root looks at.
const Path = "/dev/shm"

// Root returns Path and true when it is a directory this process can create files in and its file system has at
// least minFree bytes available to an unprivileged user; otherwise "" and false.
func Root(minFree uint64) (string, bool) {
	if st, err := os.Stat(Path); err != nil || !st.IsDir() {
		return "", false
	}
	f, err := os.CreateTemp(Path, ".rocksleak-probe-")
	if err != nil {
		return "", false
	}
	f.Close()
	os.Remove(f.Name())
	if minFree > 0 {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(Path, &fs); err != nil || fs.Bavail*uint64(fs.Bsize) < minFree {
			return "", false
		}
	}
	return Path, true
}
