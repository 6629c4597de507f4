package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/rocksleak/rocksleak/internal/shm"
)

// DecodeEvents reads a child's events, one JSON line each, into E (Event,
// or a type that embeds it) and calls fn with each, until r ends.
func DecodeEvents[E any](r io.Reader, fn func(E)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e E
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return err
		}
		fn(e)
	}
	return sc.Err()
}

// DescribeExit says in words how a child process ended (its Wait's error).
func DescribeExit(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Sprintf("was killed by signal %s", ws.Signal())
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return err.Error()
}

// LastLines is "; last output: " and the last lines of a child's output
// (empty when it wrote nothing), for an error message.
func LastLines(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return "; last output: " + strings.Join(lines, " | ")
}

// TailBuffer keeps the last bytes written to it (a child's output, for its
// error message); safe for concurrent use.
type TailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

// NewTailBuffer keeps the last max bytes.
func NewTailBuffer(max int) *TailBuffer { return &TailBuffer{max: max} }

func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *TailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// DefaultStateRoot is /dev/shm when it is a writable directory, else the
// system temporary directory. On tmpfs a store's fsyncs cost nothing, so a
// lifecycle's wall time is RocksDB's own work; RocksDB reads its files with
// pread, so their pages are not in the process's RSS either way.
func DefaultStateRoot() string {
	if root, ok := shm.Root(0); ok {
		return root
	}
	return os.TempDir()
}

// JemallocPath finds Debian's libjemalloc2 shared library.
func JemallocPath() (string, error) {
	for _, pat := range []string{"/usr/lib/*/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2", "/usr/lib64/libjemalloc.so.2"} {
		if m, _ := filepath.Glob(pat); len(m) > 0 {
			return m[0], nil
		}
	}
	return "", errors.New("libjemalloc.so.2 not found: install Debian's libjemalloc2 (make run and make test install it)")
}
