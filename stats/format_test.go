package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocksleak/rocksleak/internal/units"
)

func TestFormatBytes(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{0, "0 B"},
		{512, "512 B"},
		{-3.5, "-4 B"},
		{1023, "1023 B"},
		{1024, "1.00 KiB"},
		{11469, "11.2 KiB"},
		{-11469, "-11.2 KiB"},
		{1000 * 1024, "1000 KiB"},
		{1 << 20, "1.00 MiB"},
		{3 << 30, "3.00 GiB"},
	} {
		assert.Equal(t, tt.want, units.FormatBytes(tt.v), "%v", tt.v)
	}
	assert.Equal(t, "+11.2 KiB", units.FormatSignedBytes(11469))
	assert.Equal(t, "p = 0.032", formatP(0.0321))
	assert.Equal(t, "+2.5 FDs", formatSignedQty(2.5, "FDs"))
	assert.Equal(t, "-1.00 KiB", formatSignedQty(-1024, ""))
	assert.Equal(t, "p < 0.0001", formatP(0))
}
