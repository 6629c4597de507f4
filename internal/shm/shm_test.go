package shm

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRoot: on this machine /dev/shm is writable (the tool's default state root); no file system has MaxUint64
// bytes free, so that minimum refuses it.
func TestRoot(t *testing.T) {
	root, ok := Root(0)
	if !ok {
		t.Skip("/dev/shm is not writable here")
	}
	assert.Equal(t, Path, root)
	root, ok = Root(math.MaxUint64)
	assert.False(t, ok)
	assert.Empty(t, root)
}
