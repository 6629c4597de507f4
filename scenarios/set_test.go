package scenarios

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/spec"
)

func TestSet(t *testing.T) {
	tests := []struct {
		kv    string
		check func(t *testing.T, s Scenario)
	}{
		{"name=other", func(t *testing.T, s Scenario) { assert.Equal(t, "other", s.Name) }},
		{"description=two words = fine", func(t *testing.T, s Scenario) { assert.Equal(t, "two words = fine", s.Description) }},
		{"store=kv", func(t *testing.T, s Scenario) { assert.Equal(t, StoreKV, s.Store) }},
		{"close_failure_kind=sticky", func(t *testing.T, s Scenario) { assert.Equal(t, spec.FaultSticky, s.CloseFailureKind) }},
		{"leak_semantics=no-safety-net", func(t *testing.T, s Scenario) { assert.Equal(t, SemanticsNoSafetyNet, s.LeakSemantics) }},
		{"tasks=12", func(t *testing.T, s Scenario) { assert.Equal(t, 12, s.Tasks) }},
		{" tasks = 12 ", func(t *testing.T, s Scenario) { assert.Equal(t, 12, s.Tasks) }},
		{"retention_ms=600000", func(t *testing.T, s Scenario) { assert.Equal(t, int64(600000), s.RetentionMs) }},
		{"seed=-9", func(t *testing.T, s Scenario) { assert.Equal(t, int64(-9), s.Seed) }},
		{"close_failure_rate=0.1", func(t *testing.T, s Scenario) { assert.Equal(t, 0.1, s.CloseFailureRate) }},
		{"rebalance_tasks=1", func(t *testing.T, s Scenario) { assert.Equal(t, 1.0, s.RebalanceTasks) }},
		{"exactly_once=true", func(t *testing.T, s Scenario) { assert.True(t, s.ExactlyOnce) }},
		{"cascade=1", func(t *testing.T, s Scenario) { assert.True(t, s.Cascade) }},
		{"exactly_once=false", func(t *testing.T, s Scenario) { assert.False(t, s.ExactlyOnce) }},
		{"duration=20s", func(t *testing.T, s Scenario) { assert.Equal(t, Duration(20*time.Second), s.Duration) }},
		{"duration=1m30s", func(t *testing.T, s Scenario) { assert.Equal(t, Duration(90*time.Second), s.Duration) }},
		{"duration=1d", func(t *testing.T, s Scenario) {
			assert.Equal(t, Duration(24*time.Hour), s.Duration, "one grammar: days as in a topology")
		}},
		{"duration=0", func(t *testing.T, s Scenario) { assert.Zero(t, s.Duration) }},
		{"models=leaky,fixed", func(t *testing.T, s Scenario) { assert.Equal(t, []string{"leaky", "fixed"}, s.Models) }},
		{"models= finally-fix , options-fix ", func(t *testing.T, s Scenario) {
			assert.Equal(t, []string{"finally-fix", "options-fix"}, s.Models)
		}},
		{"models=fixed", func(t *testing.T, s Scenario) { assert.Equal(t, []string{"fixed"}, s.Models) }},
		{"models=", func(t *testing.T, s Scenario) { assert.Equal(t, []string{}, s.Models) }},
	}
	for _, tt := range tests {
		t.Run(tt.kv, func(t *testing.T) {
			s := valid()
			require.NoError(t, s.Set(tt.kv))
			tt.check(t, s)
		})
	}
}

func TestSetThenValidate(t *testing.T) {
	s := valid()
	require.NoError(t, s.Set("close_failure_rate=1.5"), "Set checks the syntax, Validate the value")
	err := s.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "close_failure_rate: 1.5 is above 1")

	s = valid()
	require.NoError(t, s.Set("models=leaky,bogus"))
	assert.ErrorContains(t, s.Validate(), `"bogus" is not a model`)

	// One run may mix the engines: a Go model and Kafka's own jars.
	s = valid()
	require.NoError(t, s.Set("models=leaky,kafka-4.3.0,kafka-4.3.1@jemalloc"))
	require.NoError(t, s.Validate())
	runs, err := s.Runs()
	require.NoError(t, err)
	assert.Equal(t, []string{"", "4.3.0", "4.3.1"}, []string{runs[0].KafkaVersion, runs[1].KafkaVersion, runs[2].KafkaVersion})
}

func TestSetRejects(t *testing.T) {
	tests := []struct {
		kv    string
		field string // the FieldError's field; "" for errors that are not about one field
		want  []string
	}{
		{"bogus=1", "", []string{`unknown key "bogus"`, "close_failure_rate", "models", "duration"}},
		{"=1", "", []string{`unknown key ""`}},
		{"tasks", "", []string{"want key=value"}},
		{"Tasks=1", "", []string{`unknown key "Tasks"`}},
		{"tasks=many", "tasks", []string{`cannot parse "many" as an integer`}},
		{"tasks=1.5", "tasks", []string{"as an integer"}},
		{"tasks=", "tasks", []string{`cannot parse ""`}},
		{"seed=99999999999999999999", "seed", []string{"as an integer"}},
		{"close_failure_rate=high", "close_failure_rate", []string{`cannot parse "high" as a finite number`}},
		{"close_failure_rate=NaN", "close_failure_rate", []string{"finite number"}},
		{"init_failure_rate=+Inf", "init_failure_rate", []string{"finite number"}},
		{"exactly_once=yes", "exactly_once", []string{`cannot parse "yes" as true or false`}},
		{"duration=20", "duration", []string{`cannot parse "20" as a duration`}},
		{"duration=soon", "duration", []string{"as a duration"}},
	}
	for _, tt := range tests {
		t.Run(tt.kv, func(t *testing.T) {
			s := valid()
			before := s.clone()
			err := s.Set(tt.kv)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalid)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			fes := fieldErrors(err)
			if tt.field == "" {
				assert.Empty(t, fes)
			} else {
				require.Len(t, fes, 1)
				assert.Equal(t, tt.field, fes[0].Field)
				assert.Contains(t, err.Error(), tt.field+": ")
			}
			assert.Equal(t, before, s, "a failed Set leaves the scenario unchanged")
		})
	}
}

// Every key can be set, so a new field kind cannot slip past Set.
func TestSetEveryKey(t *testing.T) {
	sample := map[reflect.Kind]string{
		reflect.String: "x", reflect.Int: "3", reflect.Int64: "3", reflect.Float64: "0.25",
		reflect.Bool: "true", reflect.Slice: "fixed",
	}
	for _, key := range Keys() {
		t.Run(key, func(t *testing.T) {
			s := valid()
			f := reflect.ValueOf(&s).Elem().Field(fieldIndex[key])
			v, ok := sample[f.Kind()]
			if f.Type() == reflect.TypeFor[Duration]() {
				v, ok = "3s", true
			}
			require.True(t, ok, "no sample value for kind %s", f.Kind())
			before := s.clone()
			require.NoError(t, s.Set(key+"="+v))
			assert.NotEqual(t, before, s)
		})
	}
}
