package changelog

import (
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
