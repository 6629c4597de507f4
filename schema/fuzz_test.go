package schema

import (
	"bytes"
	"os"
	"testing"
)

// FuzzParseSamplesCSV: malformed CSV is an error, never a panic.
func FuzzParseSamplesCSV(f *testing.F) {
	if b, err := os.ReadFile("../results/testdata/smoke/samples.csv"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("model,seq\nleaky,1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseSamplesCSV(bytes.NewReader(b))
	})
}
