package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/scenarios"
)

// TestChangelogAppendsAcrossWritersInOffsetOrder: a second owner (a
// restart, a moved task) appends after the first; readers see only flushed
// records.
func TestChangelogAppendsAcrossWritersInOffsetOrder(t *testing.T) {
	root := t.TempDir()
	path := ChangelogPath(root, 3, 1)
	assert.Equal(t, filepath.Join(root, "changelog", "task-3", "store-1.log"), path)
	recs, err := ReadChangelog(path)
	require.NoError(t, err)
	assert.Empty(t, recs, "a missing changelog is empty")

	w, err := OpenChangelog(path, 0)
	require.NoError(t, err)
	off, err := w.Append(ChangelogRecord{Key: "key-000001", Ts: 20000, Ver: 1})
	require.NoError(t, err)
	assert.Zero(t, off)
	off, err = w.Append(ChangelogRecord{Key: "key-000002", Ts: 40000, Ver: 1})
	require.NoError(t, err)
	assert.Equal(t, int64(1), off)
	recs, err = ReadChangelog(path)
	require.NoError(t, err)
	assert.Empty(t, recs, "unflushed records are not committed")
	require.NoError(t, w.Flush())
	require.NoError(t, w.Close())
	require.NoError(t, w.Close(), "Close is idempotent")
	_, err = w.Append(ChangelogRecord{Key: "x"})
	assert.ErrorIs(t, err, os.ErrClosed)

	recs, err = ReadChangelog(path)
	require.NoError(t, err)
	w2, err := OpenChangelog(path, int64(len(recs)))
	require.NoError(t, err)
	off, err = w2.Append(ChangelogRecord{Key: "key-000001", Ts: 20000, Ver: 2})
	require.NoError(t, err)
	assert.Equal(t, int64(2), off, "the next owner continues at the end")
	require.NoError(t, w2.Close())

	recs, err = ReadChangelog(path)
	require.NoError(t, err)
	assert.Equal(t, []ChangelogRecord{{"key-000001", 20000, 1}, {"key-000002", 40000, 1}, {"key-000001", 20000, 2}}, recs)
}

func TestChangelogCutShortIsCorrupt(t *testing.T) {
	path := ChangelogPath(t.TempDir(), 0, 0)
	w, err := OpenChangelog(path, 0)
	require.NoError(t, err)
	_, err = w.Append(ChangelogRecord{Key: "key-000001", Ts: 1, Ver: 1})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)-3], 0o644))
	recs, err := ReadChangelog(path)
	assert.ErrorIs(t, err, ErrChangelogCorrupt)
	assert.Empty(t, recs)
}

// TestReferenceIsContiguousAndDeterministic: the parent's replay gives the
// same hashes however a task's steps are cut into phases, and refuses a gap.
func TestReferenceIsContiguousAndDeterministic(t *testing.T) {
	sc, err := scenarios.Get("rehearsal")
	require.NoError(t, err)
	whole := NewReference(sc, 7)
	h, n, err := whole.Outputs(2, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, int64(10*sc.RecordsPerStep*sc.StoresPerTask), n)

	cut := NewReference(sc, 7)
	_, _, err = cut.Outputs(2, 0, 4)
	require.NoError(t, err)
	_, _, err = cut.Outputs(2, 5, 10)
	assert.Error(t, err, "a gap in the steps")
	again := NewReference(sc, 7)
	h2, _, err := again.Outputs(2, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, h, h2)
	other := NewReference(sc, 8)
	h3, _, err := other.Outputs(2, 0, 10)
	require.NoError(t, err)
	assert.NotEqual(t, h, h3, "another seed, other records")
}
