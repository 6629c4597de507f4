package measure

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtureRoot = "testdata/proc"

func TestReadFixture(t *testing.T) {
	s, err := NewSampler(WithProcRoot(fixtureRoot), WithPID(100))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })

	m, err := s.Read()
	require.NoError(t, err)
	page := int64(os.Getpagesize())
	assert.Equal(t, Memory{
		RSS:          512 * page,
		VMS:          2048 * page,
		FDs:          5, // 0, 1, 2, 3, 7
		NativeHeap:   Unavailable,
		GoHeap:       Unavailable,
		RuntimeBytes: Unavailable,
	}, m)

	again, err := s.Read()
	require.NoError(t, err)
	assert.Equal(t, m, again, "a second read rewinds both files")
}

func TestReadFixtureMalformedStatm(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		want string
	}{
		{"non-numeric size", 201, `field size: invalid character 'a'`},
		{"missing resident", 202, "field resident: missing"},
		{"empty", 203, "field size: missing"},
		{"size out of range", 204, "field size: value out of range"},
		{"negative resident", 205, `field resident: invalid character '-'`},
		{"pages overflow bytes", 206, "page count overflows bytes"},
		{"double separator", 207, "field resident: missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSampler(WithProcRoot(fixtureRoot), WithPID(tt.pid))
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, s.Close()) })

			m, err := s.Read()
			require.ErrorIs(t, err, ErrParse)
			path := filepath.Join(fixtureRoot, strconv.Itoa(tt.pid), "statm")
			assert.ErrorContains(t, err, path)
			assert.ErrorContains(t, err, tt.want)
			assert.Zero(t, m)
		})
	}
}

func TestNewSamplerMissingFiles(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, pidDir string)
		want  string
	}{
		{"no pid dir", func(*testing.T, string) {}, "statm"},
		{"no fd dir", func(t *testing.T, pidDir string) {
			require.NoError(t, os.MkdirAll(pidDir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(pidDir, "statm"), []byte("1 1 0 0 0 0 0\n"), 0o644))
		}, "fd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			pidDir := filepath.Join(root, "42")
			tt.setup(t, pidDir)
			s, err := NewSampler(WithProcRoot(root), WithPID(42))
			require.ErrorIs(t, err, os.ErrNotExist)
			assert.ErrorContains(t, err, filepath.Join(pidDir, tt.want))
			assert.Nil(t, s)
		})
	}
}

func TestNewSamplerInvalidPID(t *testing.T) {
	_, err := NewSampler(WithPID(0))
	assert.ErrorContains(t, err, "invalid pid 0")
}

// TestFDCountLargeDir lists a directory bigger than one getdents buffer.
func TestFDCountLargeDir(t *testing.T) {
	const n = 600 // 24 bytes a record: more than one 8 KiB buffer
	root := t.TempDir()
	pidDir := filepath.Join(root, "7")
	require.NoError(t, os.MkdirAll(filepath.Join(pidDir, "fd"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pidDir, "statm"), []byte("10 5 0 0 0 0 0\n"), 0o644))
	for i := range n {
		require.NoError(t, os.WriteFile(filepath.Join(pidDir, "fd", strconv.Itoa(i)), nil, 0o644))
	}

	s, err := NewSampler(WithProcRoot(root), WithPID(7))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	m, err := s.Read()
	require.NoError(t, err)
	assert.Equal(t, n, m.FDs)
}

func TestSamplerClose(t *testing.T) {
	s, err := NewSampler(WithProcRoot(fixtureRoot), WithPID(100))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.NoError(t, s.Close(), "second Close")
	_, err = s.Read()
	assert.ErrorIs(t, err, os.ErrClosed)
}

func TestCountDirentsMalformed(t *testing.T) {
	tests := []struct {
		name string
		buf  []byte
		want string
	}{
		{"truncated header", make([]byte, 10), "truncated dirent"},
		{"record length too small", make([]byte, 24), "dirent record length 0 out of range"},
		{"record length past end", recordLength(24, 32), "dirent record length 32 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := countDirents(tt.buf, "")
			assert.EqualError(t, err, tt.want)
		})
	}
}

// TestFDCountMethodsAgree checks that the one-syscall count (fstat size on procfs) and the listing agree on the
// calling process, both leaving out the sampler's own directory descriptor.
func TestFDCountMethodsAgree(t *testing.T) {
	s := newSelfSampler(t)
	if !s.fds.proc {
		t.Skip("/proc is not procfs")
	}
	byStat, err := s.fds.countByStat()
	require.NoError(t, err)
	if byStat == 0 {
		t.Skip("kernel does not report the descriptor count as the size of /proc/<pid>/fd (Linux < 6.2)")
	}
	byListing, err := s.fds.countByListing()
	require.NoError(t, err)
	assert.Equal(t, byListing, byStat)
}

// recordLength returns a buffer of n zero bytes whose first dirent claims reclen bytes.
func recordLength(n int, reclen uint16) []byte {
	b := make([]byte, n)
	binary.NativeEndian.PutUint16(b[direntReclenOff:], reclen)
	return b
}
