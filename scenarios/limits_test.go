package scenarios

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStopConditionsAreBounded: 10^12 lifecycles (accepted before, ETA
// 2,562,047 h) and a duration over a week are refused, each naming its
// field; the limits themselves are accepted (positive controls at the
// bound).
func TestStopConditionsAreBounded(t *testing.T) {
	for _, tc := range []struct {
		set   string
		field string // "" when valid
	}{
		{"lifecycles=1000000000000", "lifecycles"},
		{"lifecycles=1000000001", "lifecycles"},
		{"lifecycles=1000000000", ""},
		{"duration=169h", "duration"},
		{"duration=168h", ""},
	} {
		t.Run(tc.set, func(t *testing.T) {
			sc, err := Get("kafka-20616")
			require.NoError(t, err)
			if tc.set[:8] == "duration" {
				require.NoError(t, sc.Set("lifecycles=0"))
			}
			require.NoError(t, sc.Set(tc.set))
			err = sc.Validate()
			if tc.field == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalid)
			var fe *FieldError
			require.True(t, errors.As(err, &fe))
			assert.Equal(t, tc.field, fe.Field)
			assert.Contains(t, err.Error(), "week")
		})
	}
}

// TestSetOfAFieldNoModelUses: --set synthetic_leak_bytes with --models leaky
// ran without the leak and exited 0; it is now refused, naming the field and
// the models that read it. Controls: with a +synthetic model it is accepted;
// a field every model reads is never refused.
func TestSetOfAFieldNoModelUses(t *testing.T) {
	sc := Default()
	sc.Models = []string{"leaky"}
	err := sc.CheckSetsUsed([]string{"synthetic_leak_bytes=4096"})
	require.ErrorIs(t, err, ErrInvalid)
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "synthetic_leak_bytes", fe.Field)
	assert.Contains(t, err.Error(), `"+synthetic" models`)
	assert.Contains(t, err.Error(), "(leaky)")

	sc.Models = []string{"leaky", "fixed+synthetic"}
	assert.NoError(t, sc.CheckSetsUsed([]string{"synthetic_leak_bytes=4096"}))
	sc.Models = []string{"leaky"}
	assert.NoError(t, sc.CheckSetsUsed([]string{"value_bytes=64", "tasks=2"}))
}
