package results

import (
	"errors"
	"os"
	"testing"

	"github.com/rocksleak/rocksleak/schema"
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
		r, err := schema.Parse(b)
		if err != nil {
			if !errors.Is(err, schema.ErrBadResult) {
				t.Fatalf("error does not wrap ErrBadResult: %v", err)
			}
			return
		}
		_ = ReportMarkdown(r)
		_ = Summary(r)
	})
}
