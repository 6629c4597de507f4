package lifecycle

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RocksDBVersion opens a scratch DB under dir with the linked library and reads
// the version RocksDB itself writes in the [Version] section of its OPTIONS
// file ("rocksdb_version=7.8.3"; the LOG file no longer has it: stores log at
// ERROR level, as Kafka's openDB sets). The scratch DB is closed and removed.
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
	files, err := filepath.Glob(filepath.Join(tmp, "db", "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no OPTIONS file in %s", filepath.Join(tmp, "db"))
	}
	f, err := os.Open(files[0])
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if _, v, ok := strings.Cut(sc.Text(), "rocksdb_version="); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("no rocksdb_version line in %s", f.Name())
}
