package spec

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKafkaVersion(t *testing.T) {
	for in, want := range map[string]string{"kafka-4.3.0": "4.3.0", "kafka-10.0.12": "10.0.12", "kafka-4.4.0-rc1": "4.4.0-rc1"} {
		v, ok := KafkaVersion(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, v, in)
	}
	for _, in := range []string{"kafka-", "kafka-4", "kafka-4.3", "kafka-4.3.0.1", "kafka-4.3.x", "leaky", "kafka-4.3.0-", "Kafka-4.3.0"} {
		_, ok := KafkaVersion(in)
		assert.False(t, ok, in)
	}
}

func TestCompareKafkaVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"4.3.0", "4.3.1", -1},
		{"4.3.1", "4.3.0", 1},
		{"4.3.1", "4.3.1", 0},
		{"4.10.0", "4.9.9", 1}, // numerically, not as text
		{"3.9.1", "4.0.0", -1},
		{"4.4.0-rc1", "4.4.0", -1},
		{"4.4.0", "4.4.0-rc1", 1},
		{"4.4.0-rc1", "4.4.0-rc2", -1},
		{"4.3.01", "4.3.1", 0},
	} {
		assert.Equal(t, tc.want, CompareKafkaVersions(tc.a, tc.b), "%s vs %s", tc.a, tc.b)
	}
}
