package goengine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// durationLog keeps the restores' durations in a file (int64 nanoseconds,
// little endian, one after another) instead of the child's memory, where a
// slice of them would grow with the run; it holds only their count. The file
// (restore-times-*.bin) is made in dir at the first restore, written with
// one append per restore (no descriptor held between them), read back for a
// summary, and removed with dir or by remove.
type durationLog struct {
	dir  string
	path string
	n    int64
}

// add appends d.
func (l *durationLog) add(d time.Duration) error {
	if l.path == "" {
		f, err := os.CreateTemp(l.dir, "restore-times-*.bin")
		if err != nil {
			return fmt.Errorf("restore times: %w", err)
		}
		l.path = f.Name()
		if err := f.Close(); err != nil {
			return fmt.Errorf("restore times: %w", err)
		}
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("restore times: %w", err)
	}
	_, err = f.Write(binary.LittleEndian.AppendUint64(nil, uint64(d)))
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("restore times: %w", err)
	}
	l.n++
	return nil
}

// count is the number of durations added.
func (l *durationLog) count() int64 { return l.n }

// since reads the durations added after the first from of them.
func (l *durationLog) since(from int64) ([]time.Duration, error) {
	if from >= l.n {
		return nil, nil
	}
	f, err := os.Open(l.path)
	if err != nil {
		return nil, fmt.Errorf("restore times: %w", err)
	}
	defer f.Close()
	b := make([]byte, 8*(l.n-from))
	if _, err := f.ReadAt(b, 8*from); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("restore times: %w", err)
	}
	out := make([]time.Duration, l.n-from)
	for i := range out {
		out[i] = time.Duration(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out, nil
}

// remove deletes the file; the log is empty again.
func (l *durationLog) remove() error {
	if l.path == "" {
		return nil
	}
	err := os.Remove(l.path)
	l.path, l.n = "", 0
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
