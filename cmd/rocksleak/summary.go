package main

import "fmt"

// signedBytes renders a byte delta for people, scaled by 1024.
func signedBytes(b int64) string {
	sign := "+"
	if b < 0 {
		sign, b = "-", -b
	}
	return sign + humanBytes(float64(b))
}

func humanBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}
