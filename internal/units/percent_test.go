package units

import "testing"

func TestFormatPercent(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0.95, "95%"},
		{0.99, "99%"},
		{0.9975, "99.75%"},
		{0.9995, "99.95%"},
		{0.005, "0.5%"},
		{0.025, "2.5%"},
		{1, "100%"},
		{0, "0%"},
	} {
		if got := FormatPercent(tc.in); got != tc.want {
			t.Errorf("FormatPercent(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
