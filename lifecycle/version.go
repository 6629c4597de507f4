package lifecycle

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RocksDBVersion opens a scratch DB under dir with the linked library and reads
// the version RocksDB itself writes at the top of its LOG file
// ("RocksDB version: 7.8.3"). The scratch DB is closed and removed.
func RocksDBVersion(dir string) (string, error) {
	tmp, err := os.MkdirTemp(dir, "version-probe-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	env := NewEnv(nil)
	s, err := Open(env, Config{Path: filepath.Join(tmp, "db"), Model: AllFixes})
	if err != nil {
		return "", err
	}
	if err := s.Close(); err != nil {
		return "", err
	}
	f, err := os.Open(filepath.Join(tmp, "db", "LOG"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if _, v, ok := strings.Cut(sc.Text(), "RocksDB version: "); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("no \"RocksDB version\" line in %s", f.Name())
}
