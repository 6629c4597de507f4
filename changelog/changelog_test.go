package changelog

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChangelogAppendsAcrossWritersInOffsetOrder: a second owner (a
// restart, a moved task) appends after the first; readers see only flushed
// records.
func TestChangelogAppendsAcrossWritersInOffsetOrder(t *testing.T) {
	root := t.TempDir()
	path := Path(root, 3, 1)
	assert.Equal(t, filepath.Join(root, "changelog", "task-3", "store-1.log"), path)
	recs, err := ReadAll(path)
	require.NoError(t, err)
	assert.Empty(t, recs, "a missing changelog is empty")

	w, err := OpenWriter(path, 0)
	require.NoError(t, err)
	off, err := w.Append(Record{Key: "key-000001", Ts: 20000, Ver: 1})
	require.NoError(t, err)
	assert.Zero(t, off)
	off, err = w.Append(Record{Key: "key-000002", Ts: 40000, Ver: 1})
	require.NoError(t, err)
	assert.Equal(t, int64(1), off)
	recs, err = ReadAll(path)
	require.NoError(t, err)
	assert.Empty(t, recs, "unflushed records are not committed")
	require.NoError(t, w.Flush())
	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "Close is idempotent")
	_, err = w.Append(Record{Key: "x"})
	assert.ErrorIs(t, err, os.ErrClosed)

	recs, err = ReadAll(path)
	require.NoError(t, err)
	w2, err := OpenWriter(path, int64(len(recs)))
	require.NoError(t, err)
	off, err = w2.Append(Record{Key: "key-000001", Ts: 20000, Ver: 2})
	require.NoError(t, err)
	assert.Equal(t, int64(2), off, "the next owner continues at the end")
	require.NoError(t, w2.Close())

	recs, err = ReadAll(path)
	require.NoError(t, err)
	assert.Equal(t, []Record{{"key-000001", 20000, 1}, {"key-000002", 40000, 1}, {"key-000001", 20000, 2}}, recs)
}

func TestChangelogCutShortIsCorrupt(t *testing.T) {
	path := Path(t.TempDir(), 0, 0)
	w, err := OpenWriter(path, 0)
	require.NoError(t, err)
	_, err = w.Append(Record{Key: "key-000001", Ts: 1, Ver: 1})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)-3], 0o644))
	recs, err := ReadAll(path)
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.Empty(t, recs)
}

// TestFileFormatBytes pins the file format the package doc gives (the JVM
// child writes the same bytes): uint16 key length, key, int64 timestamp,
// int64 version, little endian, nothing else.
func TestFileFormatBytes(t *testing.T) {
	path := Path(t.TempDir(), 0, 0)
	w, err := OpenWriter(path, 0)
	require.NoError(t, err)
	_, err = w.Append(Record{Key: "key-000001", Ts: 20000, Ver: 7})
	require.NoError(t, err)
	_, err = w.Append(Record{Key: "k", Ts: -1, Ver: 0})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "0a00"+"6b65792d303030303031"+"204e000000000000"+"0700000000000000"+
		"0100"+"6b"+"ffffffffffffffff"+"0000000000000000", hex.EncodeToString(b))
}

// TestReaderStreamsWhatWasFlushed: the reader returns the records in offset
// order one at a time (its key buffer reused), Count and ReadAll agree with
// it, and a writer holds no file open between flushes.
func TestReaderStreamsWhatWasFlushed(t *testing.T) {
	path := Path(t.TempDir(), 1, 0)
	w, err := OpenWriter(path, 0)
	require.NoError(t, err)
	var want []Record
	for i := range 2500 {
		r := Record{Key: fmt.Sprintf("key-%06d", i%37), Ts: int64(i) * 400, Ver: int64(i + 1)}
		_, err := w.Append(r)
		require.NoError(t, err)
		want = append(want, r)
		if i%50 == 49 {
			require.NoError(t, w.Flush())
		}
	}
	n, err := Count(path)
	require.NoError(t, err)
	assert.Equal(t, int64(2500), n, "records not flushed yet are not counted")
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, fd := range fds {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		assert.NotEqual(t, path, target, "the writer holds no descriptor")
	}
	r, err := NewReader(path)
	require.NoError(t, err)
	var got []Record
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		got = append(got, Record{Key: string(e.Key), Ts: e.Ts, Ver: e.Ver})
	}
	require.NoError(t, r.Close())
	require.NoError(t, r.Close(), "Close is idempotent")
	assert.Equal(t, want, got)
	all, err := ReadAll(path)
	require.NoError(t, err)
	assert.Equal(t, want, all)
	missing, err := NewReader(filepath.Join(t.TempDir(), "none.log"))
	require.NoError(t, err)
	_, err = missing.Next()
	assert.ErrorIs(t, err, io.EOF, "a missing file is an empty changelog")
}
