// Package changelog keeps Kafka Streams' changelog topics where Kafka keeps
// them: outside the process whose memory is measured, as files, one per
// changelog partition. A model's child (the Go engine's topology, and the JVM
// child, which writes the same files) appends each record its store accepted
// and reads the file back to restore a store in batches, as a restore
// consumer fetches, and to verify what a reopened store holds; the
// rehearsal's fleet shares the files between its instances. Nothing of a
// changelog stays in the process between two reads: a Writer holds one
// commit's records at most, a Reader one record.
//
// # Files
//
// Store s of task k is partition k of the topic app-store-<s>-changelog; its
// file is <root>/changelog/task-<k>/store-<s>.log (Path). A model child's
// root is its job's changelog_dir (harness.Job.ChangelogDir, which the parent
// makes beside the child's state directory and removes after it), a fleet's
// its fleet root.
//
// A file is a sequence of records and nothing else (no header, no index, no
// checksum). A record's offset is its index in the file (the first is 0); the
// number of records is the partition's end offset. A record is, all integers
// little endian:
//
//	key length  uint16 (unsigned, ≤ 65535)
//	key         that many bytes (the record key; Go: workload.Key, ASCII)
//	timestamp   int64  (stream-time ms of the put; 0 for an old-format seed)
//	version     int64  (the put's version: unique within the file, ≥ 0)
//
// so a record takes 18 + key length bytes. The value is not stored: it is a
// deterministic function of the record (workload.RecordValue(seed,
// value_bytes, task, store, key, timestamp, version)), which a reader
// recomputes.
//
// # Writing (the executor's producer)
//
// A record is appended after the store accepted its put, never before and
// never for a failed put. Records are buffered in the process and written at
// the task's commit (Flush, one append per file: the changelog's commit); a
// reader sees flushed records only, and the executor flushes a store's file
// before it reads it back. Files are append-only: nothing is compacted or
// deleted while a run lasts.
//
// # Reading (the executor's restore consumer)
//
// A restore reads the whole file in offset order, restore_batch_records
// records per batch (the restore consumer's max.poll.records), and writes
// each batch into the store before reading the next: a key-value store keeps
// the last record of each key (a later put of a key replaces the earlier);
// a window store keeps each (key, timestamp) and advances its stream time per
// batch. The file is replayed whole, as an uncompacted changelog topic is (a
// broker compacts only closed log segments, 1 GiB by default, which a run's
// changelog never fills). For a window store the reader skips the records
// older than the topic's retention (timestamp < stream time − retention −
// windowstore.changelog.additional.retention.ms: cleanup.policy compact,delete
// with retention.ms of retention plus the additional retention), as the
// broker would have deleted them (the broker deletes whole log segments, so
// this is the bound of what it may still serve).
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

// recordHeader is the fixed part of a record: key length, timestamp, version.
const recordHeader = 2 + 8 + 8

// ErrCorrupt marks a changelog file whose last record is cut short or whose
// key is impossibly long.
var ErrCorrupt = errors.New("changelog file corrupt")

// Path is the file of task's store partition under root.
func Path(root string, task, store int) string {
	return filepath.Join(root, "changelog", fmt.Sprintf("task-%d", task), fmt.Sprintf("store-%d.log", store))
}

// Writer appends records to one changelog file. It holds the records
// appended since the last Flush (its buffer is reused) and no file
// descriptor: Flush opens the file, appends them and closes it. Close
// flushes and is idempotent.
type Writer struct {
	path    string
	pending []byte
	end     int64 // offset of the next record
	closed  bool
}

// OpenWriter returns the writer of the file at path (creating its directory
// if needed; the file is created at the first Flush that has records); end
// is the number of records already in it.
func OpenWriter(path string, end int64) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return &Writer{path: path, end: end}, nil
}

// Append adds one record (held until Flush) and returns its offset.
func (c *Writer) Append(r Record) (int64, error) {
	if c.closed {
		return 0, os.ErrClosed
	}
	if len(r.Key) > 0xffff {
		return 0, fmt.Errorf("changelog: key of %d bytes is too long", len(r.Key))
	}
	c.pending = binary.LittleEndian.AppendUint16(c.pending, uint16(len(r.Key)))
	c.pending = append(c.pending, r.Key...)
	c.pending = binary.LittleEndian.AppendUint64(c.pending, uint64(r.Ts))
	c.pending = binary.LittleEndian.AppendUint64(c.pending, uint64(r.Ver))
	off := c.end
	c.end++
	return off, nil
}

// End is the offset the next record will get (the number of records).
func (c *Writer) End() int64 { return c.end }

// Flush writes the held records to the file (the commit of the changelog: a
// reader sees them from then on).
func (c *Writer) Flush() error {
	if c.closed {
		return os.ErrClosed
	}
	if len(c.pending) == 0 {
		return nil
	}
	f, err := os.OpenFile(c.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(c.pending)
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("changelog: %w", err)
	}
	c.pending = c.pending[:0]
	return nil
}

// Close flushes; calling it again does nothing.
func (c *Writer) Close() error {
	if c.closed {
		return nil
	}
	err := c.Flush()
	c.closed = true
	c.pending = nil
	return err
}

// Entry is a record as a Reader returns it: Key is the Reader's buffer,
// valid until its next call.
type Entry struct {
	Key []byte
	Ts  int64
	Ver int64
}

// Reader reads one changelog file in offset order, a record at a time; it
// holds one record and a 64 KiB read buffer.
type Reader struct {
	path string
	f    *os.File
	r    *bufio.Reader
	key  []byte
	n    int64 // records read
}

// NewReader opens the file at path for reading; a missing file reads as an
// empty changelog. The caller closes the Reader.
func NewReader(path string) (*Reader, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Reader{path: path}, nil
	}
	if err != nil {
		return nil, err
	}
	return &Reader{path: path, f: f, r: bufio.NewReaderSize(f, 64<<10)}, nil
}

// Next returns the next record, or io.EOF after the last one; a record cut
// short is ErrCorrupt.
func (c *Reader) Next() (Entry, error) {
	if c.f == nil {
		return Entry{}, io.EOF
	}
	var b [16]byte
	if _, err := io.ReadFull(c.r, b[:2]); err != nil {
		if errors.Is(err, io.EOF) {
			return Entry{}, io.EOF
		}
		return Entry{}, fmt.Errorf("%w: %s: record %d: %w", ErrCorrupt, c.path, c.n, err)
	}
	n := int(binary.LittleEndian.Uint16(b[:2]))
	if cap(c.key) < n {
		c.key = make([]byte, n)
	}
	c.key = c.key[:n]
	if _, err := io.ReadFull(c.r, c.key); err != nil {
		return Entry{}, fmt.Errorf("%w: %s: record %d: %w", ErrCorrupt, c.path, c.n, err)
	}
	if _, err := io.ReadFull(c.r, b[:16]); err != nil {
		return Entry{}, fmt.Errorf("%w: %s: record %d: %w", ErrCorrupt, c.path, c.n, err)
	}
	c.n++
	return Entry{Key: c.key, Ts: int64(binary.LittleEndian.Uint64(b[:8])), Ver: int64(binary.LittleEndian.Uint64(b[8:16]))}, nil
}

// Close closes the file; calling it again does nothing.
func (c *Reader) Close() error {
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// Scan calls fn with every record of the file at path, in offset order (a
// missing file has none), and stops at fn's first error, which it returns.
// The entry's Key is valid during the call only.
func Scan(path string, fn func(Entry) error) error {
	r, err := NewReader(path)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
}

// Count is the number of records in the file at path (its end offset).
func Count(path string) (int64, error) {
	var n int64
	err := Scan(path, func(Entry) error { n++; return nil })
	return n, err
}

// ReadAll reads every record of the file at path, in offset order; a missing
// file is an empty changelog. It holds the whole file: for the parent's
// checks and tests, not for a measured process.
func ReadAll(path string) ([]Record, error) {
	var out []Record
	err := Scan(path, func(e Entry) error {
		out = append(out, Record{Key: string(e.Key), Ts: e.Ts, Ver: e.Ver})
		return nil
	})
	return out, err
}
