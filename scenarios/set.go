package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/rocksleak/rocksleak/spec"
)

// fieldIndex maps each YAML key to its Scenario field index, in field order.
var fieldKeys, fieldIndex = func() ([]string, map[string]int) {
	t := reflect.TypeFor[Scenario]()
	keys := make([]string, 0, t.NumField())
	index := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		keys = append(keys, key)
		index[key] = i
	}
	return keys, index
}()

// Keys returns the YAML names of the scenario fields in field order: the keys
// a scenario file and [Scenario.Set] accept.
func Keys() []string { return append([]string{}, fieldKeys...) }

// Get returns the value of the field whose YAML name is key, as --set would
// write it (its Go value's %v); ok is false for an unknown key.
func (s Scenario) Get(key string) (value string, ok bool) {
	i, ok := fieldIndex[key]
	if !ok {
		return "", false
	}
	return fmt.Sprint(reflect.ValueOf(s).Field(i).Interface()), true
}

// Set overrides one field from a "key=value" string, as given to --set. The key
// is the field's YAML name. Values are written as on a command line: numbers,
// true/false, durations such as "20s", and comma-separated lists for models
// ("models=leaky,fixed"). Set checks only that the value parses; call Validate
// once every override is applied. An unknown key is an error listing the valid
// keys; an unparsable value is a *FieldError naming the field. Both wrap
// ErrInvalid.
func (s *Scenario) Set(kv string) error {
	key, value, ok := strings.Cut(kv, "=")
	key = strings.TrimSpace(key)
	if !ok {
		return fmt.Errorf("%w: --set %q: want key=value", ErrInvalid, kv)
	}
	i, ok := fieldIndex[key]
	if !ok {
		return fmt.Errorf("%w: --set: unknown key %q (valid keys: %s)", ErrInvalid, key, strings.Join(fieldKeys, ", "))
	}
	value = strings.TrimSpace(value)
	f := reflect.ValueOf(s).Elem().Field(i)
	bad := func(want string) error {
		return &FieldError{Scenario: s.Name, Field: key, Value: value, Problem: fmt.Sprintf("cannot parse %q as %s", value, want)}
	}
	switch f.Interface().(type) {
	case Duration:
		d, err := parseDuration(value)
		if err != nil {
			return bad(`a duration such as "30s"`)
		}
		f.Set(reflect.ValueOf(d))
		return nil
	case []string:
		var list []string
		for _, m := range strings.Split(value, ",") {
			if m = strings.TrimSpace(m); m != "" {
				list = append(list, m)
			}
		}
		if list == nil {
			list = []string{}
		}
		f.Set(reflect.ValueOf(list))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(value)
	case reflect.Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return bad("true or false")
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(value, 10, f.Type().Bits())
		if err != nil {
			return bad("an integer")
		}
		f.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("a finite number")
		}
		f.SetFloat(x)
	default:
		// A new field kind must be taught to Set; TestSetEveryKey catches it.
		panic(fmt.Sprintf("scenarios: Set: field %s has unsupported kind %s", key, f.Kind()))
	}
	return nil
}

// modelFields are the scenario fields only some models read: which run names
// read each, and those models in words.
var modelFields = map[string]struct {
	uses func(spec.RunName) bool
	who  string
}{
	"synthetic_leak_bytes": {func(rn spec.RunName) bool { return rn.Synthetic },
		fmt.Sprintf("the %q models (e.g. leaky%s, fixed%s)", spec.SyntheticSuffix, spec.SyntheticSuffix, spec.SyntheticSuffix)},
}

// CheckSetsUsed checks that every override of sets ("key=value", as given to
// --set) that only some models read (synthetic_leak_bytes: the "+synthetic"
// models) is read by one of s.Models: an override no model in the run uses
// would run without its effect under its name. The error is a *FieldError
// naming the field and the models that would use it (wraps ErrInvalid).
func (s Scenario) CheckSetsUsed(sets []string) error {
	for _, kv := range sets {
		key, _, _ := strings.Cut(kv, "=")
		key = strings.TrimSpace(key)
		f, ok := modelFields[key]
		if !ok {
			continue
		}
		used := false
		for _, m := range s.Models {
			if rn, err := spec.ParseRunName(m, ModelNames()); err == nil && f.uses(rn) {
				used = true
			}
		}
		if !used {
			return &FieldError{Scenario: s.Name, Field: key, Value: kv, Problem: fmt.Sprintf(
				"--set %s is read by %s only, and no model of this run (%s) is one: add one to --models, or drop the --set",
				key, f.who, strings.Join(s.Models, ","))}
		}
	}
	return nil
}
