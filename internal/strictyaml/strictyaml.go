// Package strictyaml decodes the project's YAML input files (scenarios, gate
// policies, capacity topologies) the one strict way: exactly one document,
// unknown fields rejected and named with the valid ones, and no panic from
// the decoder escaping as a crash.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrEmpty means the input holds no YAML document.
var ErrEmpty = errors.New("the document is empty")

// DecodeOne decodes the single YAML document in data into v (over whatever v
// already holds, so defaults survive absent fields). kind names the file in
// messages ("a policy file holds one YAML document"). fields maps a Go type
// as yaml.v3 prints it ("gate.Check") to its valid keys, so that an unknown
// field reads `line 3: unknown field "x" (valid fields: a, b)`; pkg is the
// package prefix removed from other type names in messages ("gate.").
func DecodeOne(data []byte, v any, kind, pkg string, fields map[string][]string) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := decode(dec, v); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrEmpty
		}
		return rewrite(err, pkg, fields)
	}
	var extra yaml.Node
	if err := decode(dec, &extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return rewrite(err, pkg, fields)
		}
		return fmt.Errorf("line %d: a %s file holds one YAML document, found another", extra.Line, kind)
	}
	return nil
}

// decode turns a panic inside yaml.v3 (seen on malformed merge keys) into an
// error.
func decode(dec *yaml.Decoder, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed YAML: %v", r)
		}
	}()
	return dec.Decode(v)
}

func rewrite(err error, pkg string, fields map[string][]string) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, m := range te.Errors {
		if before, after, ok := strings.Cut(m, ": field "); ok {
			for typ, keys := range fields {
				if field, ok := strings.CutSuffix(after, " not found in type "+typ); ok {
					m = fmt.Sprintf("%s: unknown field %q (valid fields: %s)", before, field, strings.Join(keys, ", "))
				}
			}
		}
		if pkg != "" {
			m = strings.ReplaceAll(m, pkg, "")
		}
		msgs = append(msgs, m)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// ReadFile reads the YAML file at path for a parser that rejects more than
// max bytes: it reads at most max+1, so an oversized file is never read
// whole and the parser still sees that it is too large. The error is
// os.Open's (which names the path) or the read's, prefixed with the path.
func ReadFile(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
