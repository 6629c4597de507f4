package units

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0 B"}, {1, "1 B"}, {512, "512 B"}, {1023, "1023 B"}, {1024, "1.00 KiB"}, {1536, "1.50 KiB"},
		{11_264, "11.0 KiB"}, {394_240, "385 KiB"}, {-3 << 20, "-3.00 MiB"}, {4 << 30, "4.00 GiB"},
		{1 << 40, "1.00 TiB"}, {math.Inf(1), "+Inf"},
	} {
		assert.Equal(t, tc.want, FormatBytes(tc.in), "%v", tc.in)
	}
	assert.Equal(t, "+11.0 KiB", FormatSignedBytes(11_264))
	assert.Equal(t, "-512 B", FormatSignedBytes(-512))
}
