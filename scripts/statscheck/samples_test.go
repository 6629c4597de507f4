package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadSamplesCSV(t *testing.T) {
	f, err := os.Open("testdata/samples.csv")
	require.NoError(t, err)
	defer f.Close()
	ss, err := readSamplesCSV(f)
	require.NoError(t, err)
	require.Len(t, ss, 2)
	assert.Equal(t, "fixed", ss[0].Model)
	assert.Equal(t, "leaky", ss[1].Model)
	// Timer samples and the start sample are left out, as the tool's fits
	// leave them out: the file holds 159 fixed and 45 leaky rows, one timer
	// row and one start row each.
	assert.Len(t, ss[0].Lifecycles, 157)
	assert.Len(t, ss[1].Lifecycles, 43)
	for _, s := range ss {
		n := len(s.Lifecycles)
		assert.Greater(t, n, 20)
		assert.Len(t, s.NativeHeap, n)
		assert.Len(t, s.RSS, n)
		assert.Len(t, s.Records, n)
		assert.Len(t, s.RestoredRecords, n) // zeros: the file predates the column
	}
	_, err = readSamplesCSV(stringsReader("model,seq\nx,1\n"))
	assert.Error(t, err)
}

func stringsReader(s string) *os.File {
	f, _ := os.CreateTemp("", "samples")
	_, _ = f.WriteString(s)
	_, _ = f.Seek(0, 0)
	return f
}
