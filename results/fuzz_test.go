package results

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzParseResult: any bytes either parse into a valid Result or fail with
// ErrBadResult; nothing panics, and whatever parses renders.
func FuzzParseResult(f *testing.F) {
	for _, p := range []string{"testdata/smoke/result.json", "testdata/attribution/result.json"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"schema_version":1,"status":"complete","runs":{}}`))
	f.Add([]byte(`{"schema_version":1,"status":"complete","models":["leaky"],"runs":{"leaky":null}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrBadResult) {
				t.Fatalf("error does not wrap ErrBadResult: %v", err)
			}
			return
		}
		_ = ReportMarkdown(r)
		_ = Summary(r)
	})
}

// FuzzParseSamplesCSV: malformed CSV is an error, never a panic.
func FuzzParseSamplesCSV(f *testing.F) {
	if b, err := os.ReadFile("testdata/smoke/samples.csv"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("model,seq\nleaky,1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseSamplesCSV(bytes.NewReader(b))
	})
}
