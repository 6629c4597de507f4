package scenarios

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/spec"
)

func TestValidateAcceptsValid(t *testing.T) {
	require.NoError(t, valid().Validate())

	kv := valid()
	kv.Store = StoreKV
	kv.RetentionMs = 0
	kv.RebalanceEverySteps = 1
	assert.NoError(t, kv.Validate(), "kv store needs no retention")

	byTime := valid()
	byTime.Store = StoreMigrating
	byTime.Lifecycles = 0
	byTime.Duration = Duration(time.Second)
	assert.NoError(t, byTime.Validate(), "a store never rebalanced is fine when the run stops by duration")

	both := valid()
	both.Duration = Duration(time.Minute)
	assert.NoError(t, both.Validate(), "lifecycles and duration together stop at whichever comes first")
}

func TestValidateDefaultNeedsNameAndStop(t *testing.T) {
	var fields []string
	for _, fe := range fieldErrors(Default().Validate()) {
		fields = append(fields, fe.Field)
	}
	assert.ElementsMatch(t, []string{"name", "lifecycles"}, fields)
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Scenario)
		field string
		want  string // substring of the problem
	}{
		{"empty name", func(s *Scenario) { s.Name = "" }, "name", "is empty"},
		{"name with space", func(s *Scenario) { s.Name = "my run" }, "name", `' '`},
		{"name with slash", func(s *Scenario) { s.Name = "a/b" }, "name", `'/'`},
		{"name starting with dash", func(s *Scenario) { s.Name = "-x" }, "name", "must start with a letter or digit"},
		{"name too long", func(s *Scenario) { s.Name = strings.Repeat("a", 65) }, "name", "longer than 64"},
		{"no models", func(s *Scenario) { s.Models = nil }, "models", "is empty"},
		{"unknown model", func(s *Scenario) { s.Models = []string{"leaky", "patched"} }, "models", `"patched" is not a model`},
		{"unknown model names the known ones", func(s *Scenario) { s.Models = []string{"patched"} }, "models", "known: leaky, fixed, options-fix, finally-fix, read-options-fix, all-fixes"},
		{"duplicate model", func(s *Scenario) { s.Models = []string{"fixed", "leaky", "fixed"} }, "models", `"fixed" is listed twice`},
		{"unknown store", func(s *Scenario) { s.Store = "session" }, "store", `"session" is not one of kv, window, migrating`},
		{"empty store", func(s *Scenario) { s.Store = "" }, "store", `"" is not one of`},
		{"zero tasks", func(s *Scenario) { s.Tasks = 0 }, "tasks", "0 is below 1"},
		{"negative tasks", func(s *Scenario) { s.Tasks = -3 }, "tasks", "-3 is below 1"},
		{"zero stores per task", func(s *Scenario) { s.StoresPerTask = 0 }, "stores_per_task", "0 is below 1"},
		{"window without retention", func(s *Scenario) { s.RetentionMs = 0 }, "retention_ms", "window store needs a retention"},
		{"negative retention", func(s *Scenario) { s.Store = StoreKV; s.RebalanceEverySteps = 1; s.RetentionMs = -1 }, "retention_ms", "negative"},
		{"negative segment interval", func(s *Scenario) { s.SegmentIntervalMs = -60000 }, "segment_interval_ms", "-60000 is negative"},
		{"zero step", func(s *Scenario) { s.StepMs = 0 }, "step_ms", "0 is not positive"},
		{"negative step", func(s *Scenario) { s.StepMs = -5 }, "step_ms", "-5 is not positive"},
		{"negative records", func(s *Scenario) { s.RecordsPerStep = -1 }, "records_per_step", "-1 is below 0"},
		{"zero value bytes", func(s *Scenario) { s.ValueBytes = 0 }, "value_bytes", "0 is below 1"},
		{"value above 1 MiB", func(s *Scenario) { s.ValueBytes = MaxValueBytes + 1 }, "value_bytes", "1048577 is above 1048576"},
		{"zero key spread", func(s *Scenario) { s.KeySpread = 0 }, "key_spread", "0 is below 1"},
		{"zero changelog partitions", func(s *Scenario) { s.ChangelogPartitions = 0 }, "changelog_partitions", "0 is below 1"},
		{"close failure rate above 1", func(s *Scenario) { s.CloseFailureRate = 1.5 }, "close_failure_rate", "1.5 is above 1 (must be in [0,1])"},
		{"close failure rate negative", func(s *Scenario) { s.CloseFailureRate = -0.1 }, "close_failure_rate", "-0.1 is too low (must be in [0,1])"},
		{"close failure rate NaN", func(s *Scenario) { s.CloseFailureRate = math.NaN() }, "close_failure_rate", "NaN is not a finite number"},
		{"close failure rate Inf", func(s *Scenario) { s.CloseFailureRate = math.Inf(1) }, "close_failure_rate", "+Inf is not a finite number"},
		{"unknown close failure kind", func(s *Scenario) { s.CloseFailureKind = "flaky" }, "close_failure_kind", `"flaky" is not one of transient, sticky`},
		{"empty close failure kind", func(s *Scenario) { s.CloseFailureKind = "" }, "close_failure_kind", `"" is not one of`},
		{"cascade without exactly-once", func(s *Scenario) { s.Cascade = true }, "cascade", "needs exactly_once"},
		{"init failure rate above 1", func(s *Scenario) { s.InitFailureRate = 2 }, "init_failure_rate", "2 is above 1"},
		{"init failure rate negative", func(s *Scenario) { s.InitFailureRate = -1 }, "init_failure_rate", "-1 is too low"},
		{"unknown leak semantics", func(s *Scenario) { s.LeakSemantics = "finalizer" }, "leak_semantics", `"finalizer" is not one of rocksjava, no-safety-net (aliases: safety-net, pin)`},
		{"negative rebalance period", func(s *Scenario) { s.RebalanceEverySteps = -1 }, "rebalance_every_steps", "-1 is below 0"},
		{"rebalance share zero", func(s *Scenario) { s.RebalanceTasks = 0 }, "rebalance_tasks", "0 is too low (must be in (0,1])"},
		{"rebalance share above 1", func(s *Scenario) { s.RebalanceTasks = 1.5 }, "rebalance_tasks", "1.5 is above 1"},
		{"kv store never closed", func(s *Scenario) { s.Store = StoreKV }, "rebalance_every_steps", "never reached"},
		{"migrating store never closed", func(s *Scenario) { s.Store = StoreMigrating }, "rebalance_every_steps", "never reached"},
		{"window store with no records never rolls", func(s *Scenario) { s.RecordsPerStep = 0 }, "records_per_step", "stream time never advances"},
		{"negative lifecycles", func(s *Scenario) { s.Lifecycles = -1 }, "lifecycles", "-1 is below 0"},
		{"negative duration", func(s *Scenario) { s.Duration = Duration(-time.Second) }, "duration", "-1s is negative"},
		{"no stop condition", func(s *Scenario) { s.Lifecycles = 0 }, "lifecycles", "set at least one stop condition"},
		{"zero sample period", func(s *Scenario) { s.SampleEveryLifecycles = 0 }, "sample_every_lifecycles", "0 is below 1"},
		{"sample interval too short", func(s *Scenario) { s.SampleIntervalMs = 5 }, "sample_interval_ms", "5 is below 10"},
		{"synthetic model without a synthetic leak", func(s *Scenario) { s.Models = []string{"fixed", "fixed+synthetic"} }, "synthetic_leak_bytes", "must be positive"},
		{"unknown synthetic model", func(s *Scenario) { s.Models = []string{"sorta+synthetic"}; s.SyntheticLeakBytes = 1 }, "models", `"sorta+synthetic" is not a model`},
		{"negative synthetic leak", func(s *Scenario) { s.SyntheticLeakBytes = -1 }, "synthetic_leak_bytes", "-1 is below 0"},
		{"negative restore scratch", func(s *Scenario) { s.RestoreScratchBytes = -1 }, "restore_scratch_bytes", "-1 is below 0"},
		{"too many open instances", func(s *Scenario) { s.Tasks = 64; s.SegmentIntervalMs = 60 }, "tasks", "64 tasks × 1 stores × 2001 live segments"},
		{"huge task count", func(s *Scenario) { s.Tasks = math.MaxInt }, "tasks", "open RocksDB instances"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := valid()
			tt.edit(&s)
			err := s.Validate()
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalid)
			fes := fieldErrors(err)
			require.Len(t, fes, 1, "want exactly one problem, got: %v", err)
			fe := fes[0]
			assert.Equal(t, tt.field, fe.Field)
			assert.Contains(t, fe.Problem, tt.want)
			assert.Contains(t, err.Error(), tt.field+": ", "the message names the field")
			assert.Contains(t, err.Error(), `scenario "`+s.Name+`"`, "the message names the scenario")
			var target *FieldError
			assert.True(t, errors.As(err, &target))
		})
	}
}

func TestFieldErrorMessage(t *testing.T) {
	s := valid()
	s.Name = "x"
	s.CloseFailureRate = 1.5
	err := s.Validate()
	require.Error(t, err)
	assert.EqualError(t, err, `scenario "x": close_failure_rate: 1.5 is above 1 (must be in [0,1])`)
	fe := fieldErrors(err)[0]
	assert.Equal(t, 1.5, fe.Value)
}

func TestValidateReportsEveryProblem(t *testing.T) {
	s := valid()
	s.Tasks = 0
	s.CloseFailureRate = 2
	s.Models = []string{"nope"}
	s.StepMs = 0
	err := s.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	var fields []string
	for _, fe := range fieldErrors(err) {
		fields = append(fields, fe.Field)
	}
	assert.ElementsMatch(t, []string{"tasks", "close_failure_rate", "models", "step_ms"}, fields)
	assert.Len(t, strings.Split(err.Error(), "\n"), 4, "one line per problem")
}

func TestValidateAcceptsEveryModelAndSemantics(t *testing.T) {
	s := valid()
	s.Models = ModelNames()
	require.NoError(t, s.Validate())
	runs, err := s.Runs()
	require.NoError(t, err)
	require.Len(t, runs, 6)
	assert.Equal(t, "all-fixes", runs[5].Model)
	for _, sem := range []spec.Semantics{"", "rocksjava", "no-safety-net", "pin", "safety-net"} {
		s.LeakSemantics = sem
		require.NoError(t, s.Validate(), "%q", sem)
	}
	s.LeakSemantics = "pin"
	got, err := s.Semantics()
	require.NoError(t, err)
	assert.Equal(t, SemanticsNoSafetyNet, got)
}
