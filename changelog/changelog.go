// Package changelog keeps Kafka Streams' changelog topics where Kafka keeps
// them: outside the process whose memory is measured, as files, one per
// changelog partition. The rehearsal's fleet shares them between its
// instances; the writer appends, readers read them back.
//
// # Files
//
// Store s of task k is partition k of the topic app-store-<s>-changelog; its
// file is <root>/changelog/task-<k>/store-<s>.log (Path). A record's offset
// is its index in the file.
//
// A record is: key length (uint16), key bytes, timestamp (int64), version
// (int64), all little endian. The value is not stored: it is a deterministic
// function of (seed, task, store, key, timestamp, version)
// (workload.RecordValue).
package changelog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Record is one changelog record.
type Record struct {
	Key string
	Ts  int64
	Ver int64
}

// ErrCorrupt marks a changelog file whose last record is cut short or whose
// key is impossibly long.
var ErrCorrupt = errors.New("changelog file corrupt")

// Path is the file of task's store partition under root.
func Path(root string, task, store int) string {
	return filepath.Join(root, "changelog", fmt.Sprintf("task-%d", task), fmt.Sprintf("store-%d.log", store))
}

// Writer appends records to one changelog file. It owns the file; Close
// flushes and closes it and is idempotent.
type Writer struct {
	f   *os.File
	w   *bufio.Writer
	end int64 // offset of the next record
}

// OpenWriter opens (creating it and its directory if needed) the file at
// path for appending; end is the number of records already in it.
func OpenWriter(path string, end int64) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f, w: bufio.NewWriterSize(f, 64<<10), end: end}, nil
}

// Append adds one record (buffered until Flush) and returns its offset.
func (c *Writer) Append(r Record) (int64, error) {
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
func (c *Writer) End() int64 { return c.end }

// Flush writes the buffered records to the file (the commit of the
// changelog: a reader sees them from then on).
func (c *Writer) Flush() error {
	if c.f == nil {
		return os.ErrClosed
	}
	return c.w.Flush()
}

// Close flushes and closes the file; calling it again does nothing.
func (c *Writer) Close() error {
	if c.f == nil {
		return nil
	}
	err := errors.Join(c.w.Flush(), c.f.Close())
	c.f = nil
	return err
}

// ReadAll reads every record of the file at path, in offset order; a missing
// file is an empty changelog.
func ReadAll(path string) ([]Record, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var out []Record
	var b [16]byte
	for {
		if _, err := io.ReadFull(r, b[:2]); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, fmt.Errorf("%w: %s: record %d: %w", ErrCorrupt, path, len(out), err)
		}
		key := make([]byte, binary.LittleEndian.Uint16(b[:2]))
		if _, err := io.ReadFull(r, key); err != nil {
			return out, fmt.Errorf("%w: %s: record %d: %w", ErrCorrupt, path, len(out), err)
		}
		if _, err := io.ReadFull(r, b[:16]); err != nil {
			return out, fmt.Errorf("%w: %s: record %d: %w", ErrCorrupt, path, len(out), err)
		}
		out = append(out, Record{Key: string(key), Ts: int64(binary.LittleEndian.Uint64(b[:8])),
			Ver: int64(binary.LittleEndian.Uint64(b[8:16]))})
	}
}
