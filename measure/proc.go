package measure

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"syscall"
)

// statmFile reads /proc/<pid>/statm with one pread into a reused buffer. It owns fd.
type statmFile struct {
	path string
	fd   int
	buf  [256]byte // statm holds 7 decimal numbers: at most 7×20 digits plus separators
}

func openStatm(path string) (*statmFile, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &statmFile{path: path, fd: fd}, nil
}

// read returns the total and resident sizes, in pages.
func (f *statmFile) read() (size, resident int64, err error) {
	n, err := syscall.Pread(f.fd, f.buf[:], 0)
	if err != nil {
		return 0, 0, &os.PathError{Op: "read", Path: f.path, Err: err}
	}
	if n == len(f.buf) {
		return 0, 0, fmt.Errorf("%w: %s: %w", ErrParse, f.path, errors.New("longer than 255 bytes"))
	}
	size, resident, err = parseStatm(f.buf[:n])
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %s: %w", ErrParse, f.path, err)
	}
	return size, resident, nil
}

func (f *statmFile) close() error {
	if err := syscall.Close(f.fd); err != nil {
		return &os.PathError{Op: "close", Path: f.path, Err: err}
	}
	return nil
}

// parseStatm parses the first two fields of a statm line ("size resident shared text lib data dt"). It does not
// allocate unless it fails.
func parseStatm(b []byte) (size, resident int64, err error) {
	size, b, err = statmField(b, "size")
	if err != nil {
		return 0, 0, err
	}
	resident, _, err = statmField(b, "resident")
	if err != nil {
		return 0, 0, err
	}
	return size, resident, nil
}

// statmField parses the decimal number at the start of b (after one optional separating space) and returns it with
// the rest of b.
func statmField(b []byte, name string) (int64, []byte, error) {
	if len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	var v int64
	i := 0
	for ; i < len(b) && b[i] != ' ' && b[i] != '\n'; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, nil, fmt.Errorf("field %s: invalid character %q", name, c)
		}
		d := int64(c - '0')
		if v > (math.MaxInt64-d)/10 {
			return 0, nil, fmt.Errorf("field %s: value out of range", name)
		}
		v = v*10 + d
	}
	if i == 0 {
		return 0, nil, fmt.Errorf("field %s: missing", name)
	}
	return v, b[i:], nil
}

// procSuperMagic is the f_type statfs reports for procfs.
const procSuperMagic = 0x9fa0

// fdDir counts the open file descriptors listed in /proc/<pid>/fd. It keeps the directory open and owns fd.
//
// On procfs (Linux ≥ 6.2) fstat of the directory reports the number of open descriptors as its size, which costs
// one system call whatever the count. Elsewhere (older kernels, fixture directories) it rewinds the directory and
// counts the entries with getdents into a reused buffer.
type fdDir struct {
	path string
	fd   int
	self bool   // the directory lists the calling process's own descriptors, fd among them
	proc bool   // the directory is on procfs
	skip string // name of fd in the listing when self, else ""
	buf  []byte // getdents buffer, allocated on first use
}

func openFDDir(path string, self bool) (*fdDir, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var fs syscall.Statfs_t
	if err := syscall.Fstatfs(fd, &fs); err != nil {
		_ = syscall.Close(fd)
		return nil, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	d := &fdDir{path: path, fd: fd, self: self, proc: fs.Type == procSuperMagic}
	if self {
		d.skip = strconv.Itoa(fd)
	}
	return d, nil
}

// count returns the number of open descriptors, leaving out the directory's own descriptor when self.
func (d *fdDir) count() (int, error) {
	if d.proc {
		n, err := d.countByStat()
		if err != nil || n > 0 {
			return n, err
		}
		// Size 0: a kernel before 6.2, or a process without descriptors. Listing tells them apart.
	}
	return d.countByListing()
}

func (d *fdDir) countByStat() (int, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(d.fd, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: d.path, Err: err}
	}
	n := int(st.Size)
	if d.self && n > 0 {
		n-- // our own directory descriptor
	}
	return n, nil
}

// countByListing counts the entries other than ".", ".." and the directory's own descriptor.
func (d *fdDir) countByListing() (int, error) {
	if d.buf == nil {
		d.buf = make([]byte, 8<<10)
	}
	if _, err := syscall.Seek(d.fd, 0, 0); err != nil {
		return 0, &os.PathError{Op: "seek", Path: d.path, Err: err}
	}
	n := 0
	for {
		m, err := syscall.Getdents(d.fd, d.buf)
		if err != nil {
			return 0, &os.PathError{Op: "getdents", Path: d.path, Err: err}
		}
		if m == 0 {
			return n, nil
		}
		c, err := countDirents(d.buf[:m], d.skip)
		if err != nil {
			return 0, fmt.Errorf("%w: %s: %w", ErrParse, d.path, err)
		}
		n += c
	}
}

func (d *fdDir) close() error {
	if err := syscall.Close(d.fd); err != nil {
		return &os.PathError{Op: "close", Path: d.path, Err: err}
	}
	return nil
}

// Layout of struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name (NUL-terminated).
const (
	direntReclenOff = 16
	direntNameOff   = 19
)

// countDirents counts the linux_dirent64 records in b, leaving out ".", ".." and skip.
func countDirents(b []byte, skip string) (int, error) {
	n := 0
	for len(b) > 0 {
		if len(b) < direntNameOff {
			return 0, errors.New("truncated dirent")
		}
		reclen := int(binary.NativeEndian.Uint16(b[direntReclenOff:]))
		if reclen < direntNameOff || reclen > len(b) {
			return 0, fmt.Errorf("dirent record length %d out of range", reclen)
		}
		name := b[direntNameOff:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		b = b[reclen:]
		switch string(name) {
		case ".", "..", skip:
			continue
		}
		n++
	}
	return n, nil
}
