package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Validate checks what every reader of a result relies on.
func (r *Result) Validate() error {
	var errs []error
	if r.SchemaVersion != SchemaVersion {
		errs = append(errs, fmt.Errorf("schema_version: %d, this rocksleak reads %d", r.SchemaVersion, SchemaVersion))
	}
	switch r.Status {
	case StatusComplete, StatusInterrupted, StatusFailed:
	default:
		errs = append(errs, fmt.Errorf("status: %q is not one of complete, interrupted, failed", r.Status))
	}
	if r.Runs == nil {
		errs = append(errs, errors.New("runs: missing"))
	}
	for _, m := range r.Models {
		if _, ok := r.Runs[m]; !ok {
			errs = append(errs, fmt.Errorf("runs.%s: missing for a listed model", m))
		}
	}
	return errors.Join(errs...)
}

// ErrBadResult marks a result file that cannot be used (unreadable, malformed,
// or of another schema); the CLI maps it to exit status 2.
var ErrBadResult = errors.New("bad result file")

// Read loads and validates a result.json.
func Read(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	r, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Parse decodes and validates the content of a result.json. Errors wrap
// ErrBadResult.
func Parse(b []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadResult, err)
	}
	for name, run := range r.Runs {
		if run == nil {
			return nil, fmt.Errorf("%w: runs.%s: null", ErrBadResult, name)
		}
	}
	return &r, nil
}
