package harness

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrNoMount means this process may not mount a file system (it lacks
// CAP_SYS_ADMIN: not root, or in a container that withholds it).
var ErrNoMount = errors.New("cannot mount a file system here")

// SmallFS is a tmpfs of a fixed size mounted on a fresh directory: a state
// directory that fills, with the kernel's own ENOSPC, for the disk-full
// scenario and the tests. Close unmounts it and removes the directory; it is
// idempotent.
type SmallFS struct {
	Dir    string
	Size   int64
	closed bool
}

// MountSmallFS mounts a tmpfs of size bytes (rounded up to pages by the
// kernel) on a new directory under parent, read-only when readOnly. Without
// the privilege to mount the error wraps ErrNoMount.
func MountSmallFS(parent string, size int64, readOnly bool) (*SmallFS, error) {
	dir, err := os.MkdirTemp(parent, "rocksleak-smallfs-")
	if err != nil {
		return nil, err
	}
	var flags uintptr = syscall.MS_NOSUID | syscall.MS_NODEV
	if readOnly {
		flags |= syscall.MS_RDONLY
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		_ = os.Remove(dir)
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("%w: mounting a %d-byte tmpfs on %s: %w (run as root, or with CAP_SYS_ADMIN)", ErrNoMount, size, dir, err)
		}
		return nil, fmt.Errorf("mounting a %d-byte tmpfs on %s: %w", size, dir, err)
	}
	return &SmallFS{Dir: dir, Size: size}, nil
}

// Close unmounts the file system (lazily, should a file still be open in
// it) and removes its directory.
func (f *SmallFS) Close() error {
	if f == nil || f.closed {
		return nil
	}
	f.closed = true
	err := syscall.Unmount(f.Dir, syscall.MNT_DETACH)
	return errors.Join(err, os.Remove(f.Dir))
}

// ReadOnly remounts the file system read-only, as a kernel does a disk's
// after an I/O error (errors=remount-ro): what is there stays, nothing can be
// written or removed.
func (f *SmallFS) ReadOnly() error {
	return syscall.Mount("tmpfs", f.Dir, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV,
		fmt.Sprintf("size=%d,mode=0755", f.Size))
}
