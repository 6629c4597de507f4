package scenarios

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rocksleak/rocksleak/spec"
)

// ErrInvalid is wrapped by every error this package returns: the scenario, a
// file or an override is bad input (the CLI exits with status 2).
var ErrInvalid = errors.New("invalid scenario")

// FieldError is one problem with one field of a scenario.
type FieldError struct {
	// Scenario is the scenario's name, possibly empty.
	Scenario string
	// Field is the field's YAML name.
	Field string
	// Value is the offending value (for Set, the text given).
	Value any
	// Problem says what is wrong and what is allowed, starting with the value.
	Problem string
}

// Error reads `scenario "x": close_failure_rate: 1.5 is above 1 (must be in [0,1])`.
func (e *FieldError) Error() string {
	return fmt.Sprintf("scenario %q: %s: %s", e.Scenario, e.Field, e.Problem)
}

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// Validate reports every problem with s, each as a *FieldError, joined with
// errors.Join; nil means the harness can run s. The result wraps ErrInvalid.
func (s Scenario) Validate() error {
	v := validator{s: s}
	v.name()
	v.models()
	v.store()
	v.atLeast("tasks", s.Tasks, 1)
	v.atLeast("stores_per_task", s.StoresPerTask, 1)
	v.steps()
	v.atLeast("records_per_step", s.RecordsPerStep, 0)
	v.atLeast("value_bytes", s.ValueBytes, 1)
	if s.ValueBytes > MaxValueBytes {
		v.add("value_bytes", s.ValueBytes, "%d is above %d (must be in [1, 1 MiB])", s.ValueBytes, MaxValueBytes)
	}
	v.atLeast("key_spread", s.KeySpread, 1)
	v.atLeast("changelog_partitions", s.ChangelogPartitions, 1)
	v.failures()
	if _, err := spec.ParseSemantics(string(s.LeakSemantics)); err != nil {
		v.add("leak_semantics", s.LeakSemantics, "%q is not one of %s, %s (aliases: safety-net, pin)",
			s.LeakSemantics, SemanticsRocksJava, SemanticsNoSafetyNet)
	}
	v.rebalance()
	v.stop()
	v.atLeast("sample_every_lifecycles", s.SampleEveryLifecycles, 1)
	v.atLeast("sample_interval_ms", s.SampleIntervalMs, MinSampleIntervalMs)
	v.atLeast("synthetic_leak_bytes", s.SyntheticLeakBytes, 0)
	v.atLeast("restore_scratch_bytes", s.RestoreScratchBytes, 0)
	v.atLeast("restore_batch_records", s.RestoreBatchRecords, 1)
	switch {
	case s.BoundedCacheBytes < 0:
		v.add("bounded_cache_bytes", s.BoundedCacheBytes, "%d is negative (0: no bounded-memory config setter)", s.BoundedCacheBytes)
	case s.BoundedCacheBytes > 0 && s.BoundedWriteBufferBytes <= 0:
		v.add("bounded_write_buffer_bytes", s.BoundedWriteBufferBytes, "%d is not positive, but bounded_cache_bytes is set (the write-buffer manager needs a limit)", s.BoundedWriteBufferBytes)
	case s.BoundedCacheBytes == 0 && s.BoundedWriteBufferBytes != 0:
		v.add("bounded_write_buffer_bytes", s.BoundedWriteBufferBytes, "%d is set, but bounded_cache_bytes is 0 (no config setter)", s.BoundedWriteBufferBytes)
	}
	if s.AdditionalRetentionMs < 0 {
		v.add("additional_retention_ms", s.AdditionalRetentionMs, "%d is negative (Kafka's default is 86400000, one day)", s.AdditionalRetentionMs)
	}
	v.openInstances()
	return errors.Join(v.errs...)
}

type validator struct {
	s    Scenario
	errs []error
}

func (v *validator) add(field string, value any, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Scenario: v.s.Name, Field: field, Value: value, Problem: fmt.Sprintf(format, args...)})
}

func (v *validator) atLeast(field string, n, low int) {
	if n < low {
		v.add(field, n, "%d is below %d (must be at least %d)", n, low, low)
	}
}

func (v *validator) oneOf(field, value string, allowed ...string) {
	for _, a := range allowed {
		if value == a {
			return
		}
	}
	v.add(field, value, "%q is not one of %s", value, strings.Join(allowed, ", "))
}

// rate checks that x is in [0,1] (or (0,1] if openLow).
func (v *validator) rate(field string, x float64, openLow bool) {
	interval := "[0,1]"
	if openLow {
		interval = "(0,1]"
	}
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		v.add(field, x, "%v is not a finite number (must be in %s)", x, interval)
	case x > 1:
		v.add(field, x, "%v is above 1 (must be in %s)", x, interval)
	case x < 0 || (openLow && x == 0):
		v.add(field, x, "%v is too low (must be in %s)", x, interval)
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

func (v *validator) name() {
	n := v.s.Name
	switch {
	case n == "":
		v.add("name", n, "is empty (a scenario needs a name)")
	case len(n) > 64:
		v.add("name", n, "%q is longer than 64 bytes", n)
	case !isNameByte(n[0]) || n[0] == '-' || n[0] == '.' || n[0] == '_':
		v.add("name", n, "%q must start with a letter or digit", n)
	default:
		for i := range len(n) {
			if !isNameByte(n[i]) {
				v.add("name", n, "%q has %q: use letters, digits, '.', '_' and '-'", n, n[i])
				return
			}
		}
	}
}

func (v *validator) models() {
	ms := v.s.Models
	if len(ms) == 0 {
		v.add("models", ms, "is empty (name at least one of %s)", strings.Join(ModelNames(), ", "))
		return
	}
	seen := make(map[string]bool, len(ms))
	synthetic := false
	for _, m := range ms {
		rn, err := spec.ParseRunName(m, ModelNames())
		synthetic = synthetic || rn.Synthetic
		switch {
		case err != nil:
			v.add("models", m, "%s", err.Error())
		case seen[m]:
			v.add("models", m, "%q is listed twice", m)
		}
		seen[m] = true
	}
	if synthetic && v.s.SyntheticLeakBytes <= 0 {
		v.add("synthetic_leak_bytes", v.s.SyntheticLeakBytes, "must be positive when a model has the %q suffix", spec.SyntheticSuffix)
	}
}

func (v *validator) store() {
	s := v.s
	v.oneOf("store", string(s.Store), string(StoreKV), string(StoreWindow), string(StoreMigrating))
	if s.RetentionMs < 0 {
		v.add("retention_ms", s.RetentionMs, "%d is negative", s.RetentionMs)
	} else if s.Store == StoreWindow && s.RetentionMs == 0 {
		v.add("retention_ms", s.RetentionMs, "is 0, but a window store needs a retention > 0")
	}
	if s.SegmentIntervalMs < 0 {
		v.add("segment_interval_ms", s.SegmentIntervalMs, "%d is negative (must be > 0, or 0 to derive max(retention/2, 60000))", s.SegmentIntervalMs)
	}
}

func (v *validator) steps() {
	if v.s.StepMs <= 0 {
		v.add("step_ms", v.s.StepMs, "%d is not positive (stream time must advance each step)", v.s.StepMs)
	}
}

func (v *validator) failures() {
	s := v.s
	v.rate("close_failure_rate", s.CloseFailureRate, false)
	var faults []string
	for _, f := range spec.Faults() {
		faults = append(faults, string(f))
	}
	v.oneOf("close_failure_kind", string(s.CloseFailureKind), faults...)
	v.rate("init_failure_rate", s.InitFailureRate, false)
	if s.Cascade && !s.ExactlyOnce {
		v.add("cascade", true, "true needs exactly_once: true (the cascade is exactly-once-v2 fencing)")
	}
}

func (v *validator) rebalance() {
	s := v.s
	v.atLeast("rebalance_every_steps", s.RebalanceEverySteps, 0)
	v.rate("rebalance_tasks", s.RebalanceTasks, true)
	if (s.Store == StoreKV || s.Store == StoreMigrating) && s.RebalanceEverySteps == 0 && s.Lifecycles > 0 {
		v.add("rebalance_every_steps", 0,
			"is 0, so a %s store is never closed and lifecycles: %d is never reached (set rebalance_every_steps, or stop by duration)",
			s.Store, s.Lifecycles)
	}
	if s.Store == StoreWindow && s.RecordsPerStep == 0 && s.Lifecycles > 0 && s.Duration == 0 {
		v.add("records_per_step", 0,
			"is 0, so stream time never advances, no window segment is ever opened or closed and lifecycles: %d is never reached (write records, or stop by duration)",
			s.Lifecycles)
	}
}

func (v *validator) stop() {
	s := v.s
	v.atLeast("lifecycles", s.Lifecycles, 0)
	if s.Lifecycles > MaxLifecycles {
		v.add("lifecycles", s.Lifecycles, "%d is above %d, more than one machine runs in a week (a lifecycle opens and closes a RocksDB: about 70 per second here); stop by duration, or run fewer",
			s.Lifecycles, MaxLifecycles)
	}
	if s.Duration < 0 {
		v.add("duration", s.Duration, "%v is negative", s.Duration)
	}
	if s.Duration > MaxDuration {
		v.add("duration", s.Duration, "%v is above %v (a week), the longest run rocksleak takes", s.Duration, MaxDuration)
	}
	if s.Lifecycles == 0 && s.Duration == 0 {
		v.add("lifecycles", 0, "is 0 and duration is 0s: set at least one stop condition")
	}
}

func (v *validator) openInstances() {
	s := v.s
	if s.Tasks < 1 || s.StoresPerTask < 1 {
		return
	}
	live := s.LiveSegments()
	if live > MaxOpenInstances || s.Tasks > MaxOpenInstances || s.StoresPerTask > MaxOpenInstances ||
		s.Tasks*s.StoresPerTask*live > MaxOpenInstances {
		v.add("tasks", s.Tasks, "%d tasks × %d stores × %d live segments is above %d open RocksDB instances",
			s.Tasks, s.StoresPerTask, live, MaxOpenInstances)
	}
}
