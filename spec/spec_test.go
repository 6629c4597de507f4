package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Fault
		wantErr string
	}{
		{in: "transient", want: FaultTransient},
		{in: "sticky", want: FaultSticky},
		{in: "Sticky", wantErr: `unknown close failure kind "Sticky" (known: transient, sticky)`},
		{in: "", wantErr: `unknown close failure kind "" (known: transient, sticky)`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFault(tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.in, string(got), "the type's string is the word in scenario files")
		})
	}
}

func TestParseAllocator(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Allocator
		wantErr string
	}{
		{in: "glibc", want: AllocatorGlibc},
		{in: "jemalloc", want: AllocatorJemalloc},
		{in: "tcmalloc", wantErr: `"tcmalloc" is not one of glibc, jemalloc`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseAllocator(tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseRunName(t *testing.T) {
	models := []string{"leaky", "fixed"}
	for _, tc := range []struct {
		in      string
		want    RunName
		wantErr string
	}{
		{in: "leaky", want: RunName{Model: "leaky", Allocator: AllocatorGlibc}},
		{in: "fixed+synthetic", want: RunName{Model: "fixed", Synthetic: true, Allocator: AllocatorGlibc}},
		{in: "leaky@jemalloc", want: RunName{Model: "leaky", Allocator: AllocatorJemalloc}},
		{in: "fixed+synthetic@glibc", want: RunName{Model: "fixed", Synthetic: true, Allocator: AllocatorGlibc}},
		{in: "leaky@tcmalloc", wantErr: `"leaky@tcmalloc": allocator "tcmalloc" is not one of glibc, jemalloc`},
		{in: "kafka-4.3.0", want: RunName{Model: "kafka-4.3.0", Allocator: AllocatorGlibc, KafkaVersion: "4.3.0"}},
		{in: "kafka-4.3.1+synthetic@jemalloc", want: RunName{Model: "kafka-4.3.1", Synthetic: true, Allocator: AllocatorJemalloc, KafkaVersion: "4.3.1"}},
		{in: "kafka-4.4.0-rc1", want: RunName{Model: "kafka-4.4.0-rc1", Allocator: AllocatorGlibc, KafkaVersion: "4.4.0-rc1"}},
		{in: "kafka-4.3", wantErr: `"kafka-4.3" is not a model`},
		{in: "kafka-latest", wantErr: `"kafka-latest" is not a model`},
		{in: "sloppy", wantErr: `"sloppy" is not a model (known: leaky, fixed, or kafka-<version> such as kafka-4.3.0; each optionally with "+synthetic" and @glibc or @jemalloc)`},
		{in: "leaky+synthetic+synthetic", wantErr: `"leaky+synthetic+synthetic" is not a model`},
		{in: "kafka-4.3.1+read-options-fix", want: RunName{Model: "kafka-4.3.1", ReadOptionsFix: true, Allocator: AllocatorGlibc, KafkaVersion: "4.3.1"}},
		{in: "kafka-4.3.1+read-options-fix+synthetic@jemalloc", want: RunName{Model: "kafka-4.3.1", ReadOptionsFix: true, Synthetic: true, Allocator: AllocatorJemalloc, KafkaVersion: "4.3.1"}},
		{in: "fixed+read-options-fix", wantErr: `"+read-options-fix" is for the JVM engine's kafka-<version> models`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRunName(tc.in, models)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestRunNameStringRoundTrips(t *testing.T) {
	models := []string{"leaky", "fixed"}
	for _, name := range []string{"leaky", "fixed+synthetic", "leaky@jemalloc", "fixed+synthetic@jemalloc", "kafka-4.3.0", "kafka-4.3.1+synthetic@jemalloc", "kafka-4.3.1+read-options-fix", "kafka-4.3.1+read-options-fix+synthetic"} {
		rn, err := ParseRunName(name, models)
		require.NoError(t, err)
		assert.Equal(t, name, rn.String())
	}
	rn, err := ParseRunName("leaky@glibc", models)
	require.NoError(t, err)
	assert.Equal(t, "leaky", rn.String(), "glibc is the default and is not written")
}

func TestSegmentIntervalMs(t *testing.T) {
	for _, tc := range []struct{ retention, explicit, want int64 }{
		{retention: 120_000, want: 60_000},
		{retention: 3_600_000, want: 1_800_000},
		{retention: 60_000, want: 60_000}, // retention/2 is below Kafka's 60 s floor
		{retention: 3_600_000, explicit: 5_000, want: 5_000},
	} {
		assert.Equal(t, tc.want, SegmentIntervalMs(tc.retention, tc.explicit), "%+v", tc)
	}
}
