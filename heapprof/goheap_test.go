package heapprof

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var goHeapHeld [][]byte

//go:noinline
func holdGoHeap(n, size int) {
	for range n {
		goHeapHeld = append(goHeapHeld, make([]byte, size))
	}
}

func writeGoHeap(t *testing.T, path string) {
	t.Helper()
	runtime.GC()
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, pprof.Lookup("heap").WriteTo(f, 0))
	require.NoError(t, f.Close())
}

// TestGoHeapGrowthFindsTheHolder: 8 MiB allocated by holdGoHeap between two profiles is the growth, and it is
// holdGoHeap's.
func TestGoHeapGrowthFindsTheHolder(t *testing.T) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 4096
	defer func() { runtime.MemProfileRate = old; goHeapHeld = nil }()
	dir := t.TempDir()
	writeGoHeap(t, filepath.Join(dir, "first.pb.gz"))
	holdGoHeap(1024, 8<<10)
	writeGoHeap(t, filepath.Join(dir, "last.pb.gz"))
	p, err := GoHeapGrowth(filepath.Join(dir, "first.pb.gz"), filepath.Join(dir, "last.pb.gz"))
	require.NoError(t, err)
	total, err := InuseBytes(p)
	require.NoError(t, err)
	assert.InDelta(t, 8<<20, total, 1<<20, "the growth is the 8 MiB held")
	idx, err := InuseSpaceIndex(p)
	require.NoError(t, err)
	var byHolder int64
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if l.Function != nil && filepath.Base(l.Function.Name) == "heapprof.holdGoHeap" {
					byHolder += s.Value[idx]
				}
			}
		}
	}
	assert.InDelta(t, 8<<20, byHolder, 1<<20, "allocated in holdGoHeap")
}
