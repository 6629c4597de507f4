package harness

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The fleet's changelogs are files: one per store partition (task k's store
// s is partition k of the topic app-store-s-changelog), at
// <fleet root>/changelog/task-<k>/store-<s>.log, shared by the fleet. Only the
// instance that owns the task appends to it; whoever owns it next (the same
// instance after a restart, or another one after a move) reads it to restore
// or catch up, and the parent reads it to verify. A record's offset is its
// index in the file.
//
// A record is: key length (uint16), key bytes, timestamp (int64), version
// (int64), all little endian. The value is not stored: it is a deterministic
// function of (seed, task, store, key, timestamp, version) (topology.value).

// ChangelogRecord is one changelog record.
type ChangelogRecord struct {
	Key string
	Ts  int64
	Ver int64
}

// ErrChangelogCorrupt marks a changelog file whose last record is cut short or
// whose key is impossibly long.
var ErrChangelogCorrupt = errors.New("changelog file corrupt")

// ChangelogPath is the file of task's store partition under the fleet root.
func ChangelogPath(root string, task, store int) string {
	return filepath.Join(root, "changelog", fmt.Sprintf("task-%d", task), fmt.Sprintf("store-%d.log", store))
}

// ChangelogWriter appends records to one changelog file. It owns the file;
// Close flushes and closes it and is idempotent.
type ChangelogWriter struct {
	f   *os.File
	w   *bufio.Writer
	end int64 // offset of the next record
}

// OpenChangelog opens (creating it and its directory if needed) the file at
// path for appending; end is the number of records already in it.
func OpenChangelog(path string, end int64) (*ChangelogWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &ChangelogWriter{f: f, w: bufio.NewWriterSize(f, 64<<10), end: end}, nil
}

// Append adds one record (buffered until Flush) and returns its offset.
func (c *ChangelogWriter) Append(r ChangelogRecord) (int64, error) {
	if c.f == nil {
		return 0, os.ErrClosed
	}
	if len(r.Key) > 0xffff {
		return 0, fmt.Errorf("changelog: key of %d bytes is too long", len(r.Key))
	}
	var b [18]byte
	binary.LittleEndian.PutUint16(b[:2], uint16(len(r.Key)))
	if _, err := c.w.Write(b[:2]); err != nil {
		return 0, err
	}
	if _, err := c.w.WriteString(r.Key); err != nil {
		return 0, err
	}
	binary.LittleEndian.PutUint64(b[2:10], uint64(r.Ts))
	binary.LittleEndian.PutUint64(b[10:18], uint64(r.Ver))
	if _, err := c.w.Write(b[2:18]); err != nil {
		return 0, err
	}
	off := c.end
	c.end++
	return off, nil
}

// End is the offset the next record will get (the number of records).
func (c *ChangelogWriter) End() int64 { return c.end }

// Flush writes the buffered records to the file (the commit of the
// changelog: a reader sees them from then on).
func (c *ChangelogWriter) Flush() error {
	if c.f == nil {
		return os.ErrClosed
	}
	return c.w.Flush()
}

// Close flushes and closes the file; calling it again does nothing.
func (c *ChangelogWriter) Close() error {
	if c.f == nil {
		return nil
	}
	err := errors.Join(c.w.Flush(), c.f.Close())
	c.f = nil
	return err
}

// ReadChangelog reads every record of the file at path, in offset order; a
// missing file is an empty changelog.
func ReadChangelog(path string) ([]ChangelogRecord, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var out []ChangelogRecord
	var b [16]byte
	for {
		if _, err := io.ReadFull(r, b[:2]); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, fmt.Errorf("%w: %s: record %d: %w", ErrChangelogCorrupt, path, len(out), err)
		}
		key := make([]byte, binary.LittleEndian.Uint16(b[:2]))
		if _, err := io.ReadFull(r, key); err != nil {
			return out, fmt.Errorf("%w: %s: record %d: %w", ErrChangelogCorrupt, path, len(out), err)
		}
		if _, err := io.ReadFull(r, b[:16]); err != nil {
			return out, fmt.Errorf("%w: %s: record %d: %w", ErrChangelogCorrupt, path, len(out), err)
		}
		out = append(out, ChangelogRecord{Key: string(key), Ts: int64(binary.LittleEndian.Uint64(b[:8])),
			Ver: int64(binary.LittleEndian.Uint64(b[8:16]))})
	}
}
