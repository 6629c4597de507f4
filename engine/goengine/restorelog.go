package goengine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// restoreEntry is one restore: how long it took and how many changelog
// records it replayed.
type restoreEntry struct {
	d       time.Duration
	records int64
}

// restoreEntrySize is a restoreEntry's size in its file.
const restoreEntrySize = 16

// durationLog keeps the restores' durations and record counts in a file
// (per restore two int64, nanoseconds then records, little endian, one
// restore after another) instead of the child's memory, where a slice of
// them would grow with the run; it holds only their count. The file
// (restore-times-*.bin) is made in dir at the first restore, written with
// one append per restore (no descriptor held between them), read back for a
// summary, and removed with dir or by remove.
type durationLog struct {
	dir  string
	path string
	n    int64
}

// add appends e.
func (l *durationLog) add(e restoreEntry) error {
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
	b := binary.LittleEndian.AppendUint64(nil, uint64(e.d))
	_, err = f.Write(binary.LittleEndian.AppendUint64(b, uint64(e.records)))
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("restore times: %w", err)
	}
	l.n++
	return nil
}

// count is the number of restores added.
func (l *durationLog) count() int64 { return l.n }

// since reads the restores added after the first from of them.
func (l *durationLog) since(from int64) ([]restoreEntry, error) {
	if from >= l.n {
		return nil, nil
	}
	f, err := os.Open(l.path)
	if err != nil {
		return nil, fmt.Errorf("restore times: %w", err)
	}
	defer f.Close()
	b := make([]byte, restoreEntrySize*(l.n-from))
	if _, err := f.ReadAt(b, restoreEntrySize*from); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("restore times: %w", err)
	}
	out := make([]restoreEntry, l.n-from)
	for i := range out {
		at := b[restoreEntrySize*i:]
		out[i] = restoreEntry{d: time.Duration(binary.LittleEndian.Uint64(at)), records: int64(binary.LittleEndian.Uint64(at[8:]))}
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
