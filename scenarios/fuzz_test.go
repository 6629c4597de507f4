package scenarios

import (
	"errors"
	"testing"
)

// FuzzLoadYAML parses arbitrary bytes as a scenario file. It must never panic;
// what parses must validate and digest without panicking, and the canonical
// YAML of a valid scenario (the only kind ever written out) must parse back to
// the same scenario. The seed corpus is under
// testdata/fuzz/FuzzLoadYAML plus every catalogue entry.
func FuzzLoadYAML(f *testing.F) {
	for _, name := range Names() {
		data, err := catalogue.ReadFile("catalogue/" + name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		verr := s.Validate()
		if verr != nil && !errors.Is(verr, ErrInvalid) {
			t.Fatalf("Validate error does not wrap ErrInvalid: %v", verr)
		}
		_ = s.LiveSegments()
		if verr != nil {
			return
		}
		canonical := s.CanonicalYAML()
		back, err := Parse(canonical)
		if err != nil {
			t.Fatalf("canonical YAML does not parse: %v\n%s", err, canonical)
		}
		if back.Digest() != s.Digest() {
			t.Fatalf("canonical YAML round trip changed the scenario:\nbefore %#v\nafter  %#v\n%s", s, back, canonical)
		}
	})
}
