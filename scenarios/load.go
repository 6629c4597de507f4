package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rocksleak/rocksleak/internal/strictyaml"
)

//go:embed catalogue/*.yaml
var catalogue embed.FS

const catalogueDir = "catalogue"

// MaxFileBytes is the largest scenario file Parse accepts.
const MaxFileBytes = 1 << 20

// DefaultName returns the name of the scenario the CLI runs when none is given.
func DefaultName() string { return "kafka-20616" }

// Names returns the catalogue scenario names, sorted.
func Names() []string {
	entries, err := fs.ReadDir(catalogue, catalogueDir)
	if err != nil {
		// The directory is embedded at build time; it cannot be missing.
		panic(fmt.Sprintf("scenarios: reading embedded catalogue: %v", err))
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(names)
	return names
}

// Get returns the catalogue scenario with the given name. Each call returns a
// fresh copy that the caller owns. An unknown name is an error listing the
// known names.
func Get(name string) (Scenario, error) {
	s, _, err := getCatalogue(name)
	return s, err
}

func getCatalogue(name string) (Scenario, []byte, error) {
	if !slices.Contains(Names(), name) {
		return Scenario{}, nil, fmt.Errorf("%w: unknown scenario %q (known: %s; or give a path to a .yaml file)",
			ErrInvalid, name, strings.Join(Names(), ", "))
	}
	data, err := catalogue.ReadFile(path.Join(catalogueDir, name+".yaml"))
	if err != nil {
		return Scenario{}, nil, fmt.Errorf("%w: catalogue scenario %q: %w", ErrInvalid, name, err)
	}
	s, err := parse(data, name)
	if err != nil {
		return Scenario{}, nil, fmt.Errorf("%w: catalogue scenario %q: %w", ErrInvalid, name, err)
	}
	return s, data, nil
}

// Load returns the scenario named by nameOrPath and its canonical YAML (see
// [Scenario.CanonicalYAML]). nameOrPath is taken as a file path if it ends in
// .yaml or .yml, contains a path separator, or names an existing file;
// otherwise it is a catalogue name. A file is parsed as by [Parse]; if it sets
// no name, its base name (without extension) is used.
//
// Load checks syntax and types, not values: apply any overrides with
// [Scenario.Set] and then call [Scenario.Validate]. Every error wraps
// [ErrInvalid].
func Load(nameOrPath string) (Scenario, []byte, error) {
	if !isPath(nameOrPath) {
		s, _, err := getCatalogue(nameOrPath)
		if err != nil {
			return Scenario{}, nil, err
		}
		return s, s.CanonicalYAML(), nil
	}
	s, err := loadFile(nameOrPath)
	if err != nil {
		return Scenario{}, nil, err
	}
	return s, s.CanonicalYAML(), nil
}

func isPath(nameOrPath string) bool {
	ext := strings.ToLower(filepath.Ext(nameOrPath))
	if ext == ".yaml" || ext == ".yml" || strings.ContainsRune(nameOrPath, '/') ||
		strings.ContainsRune(nameOrPath, filepath.Separator) {
		return true
	}
	fi, err := os.Stat(nameOrPath)
	return err == nil && !fi.IsDir()
}

func loadFile(p string) (Scenario, error) {
	data, err := strictyaml.ReadFile(p, MaxFileBytes)
	if err != nil {
		return Scenario{}, fmt.Errorf("%w: scenario file: %w", ErrInvalid, err)
	}
	s, err := parse(data, nameFromPath(p))
	if err != nil {
		return Scenario{}, fmt.Errorf("%w: scenario file %s: %w", ErrInvalid, p, err)
	}
	return s, nil
}

// nameFromPath derives a valid scenario name from a file's base name.
func nameFromPath(p string) string {
	base := filepath.Base(p)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	name := []byte(base)
	for i, c := range name {
		if !isNameByte(c) {
			name[i] = '-'
		}
	}
	n := strings.TrimLeft(string(name), "-._")
	if n == "" {
		return "scenario"
	}
	return n
}

// Parse decodes one YAML scenario document over [Default]. Unknown fields,
// values of the wrong type, non-finite rates, several documents and an empty
// document are errors, which wrap [ErrInvalid] and give the line. A document
// without a name yields a scenario with an empty Name. Values are not
// validated: call [Scenario.Validate].
func Parse(data []byte) (Scenario, error) {
	s, err := parse(data, "")
	if err != nil {
		return Scenario{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return s, nil
}

// parse decodes data over Default, naming the result defaultName if the
// document sets no name. Its errors do not wrap ErrInvalid; callers add it
// with their context.
func parse(data []byte, defaultName string) (Scenario, error) {
	if len(data) > MaxFileBytes {
		return Scenario{}, fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	s := Default()
	s.Name = defaultName
	err := strictyaml.DecodeOne(data, &s, "scenario", "scenarios.", map[string][]string{"scenarios.Scenario": Keys()})
	if errors.Is(err, strictyaml.ErrEmpty) {
		return Scenario{}, fmt.Errorf("no scenario: %w", err)
	}
	if err != nil {
		return Scenario{}, err
	}
	// Prose: surrounding white space carries no meaning (and yaml.v3 does not
	// round-trip a leading newline).
	s.Description = strings.TrimSpace(s.Description)
	if s.Name == "" {
		s.Name = defaultName
	}
	for _, f := range []struct {
		key string
		v   float64
	}{
		{"close_failure_rate", s.CloseFailureRate},
		{"init_failure_rate", s.InitFailureRate},
		{"rebalance_tasks", s.RebalanceTasks},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return Scenario{}, &FieldError{Scenario: s.Name, Field: f.key, Value: f.v, Problem: fmt.Sprintf("%v is not a finite number", f.v)}
		}
	}
	return s, nil
}
