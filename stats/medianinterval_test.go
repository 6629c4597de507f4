package stats

import "testing"

func TestMedianInterval(t *testing.T) {
	x := []float64{9, 1, 8, 2, 7, 3, 6, 4, 5, 10}
	// n = 10 at 95%: P(Bin(10, ½) ≤ 1) = 11/1024 ≤ 0.025 < P(≤ 2) = 56/1024, so j = 2: [x(2), x(9)].
	lo, hi, ok := MedianInterval(x, 0.95)
	if !ok || lo != 2 || hi != 9 {
		t.Fatalf("MedianInterval = %v, %v, %v; want 2, 9, true", lo, hi, ok)
	}
	if _, _, ok := MedianInterval(x[:5], 0.95); ok {
		t.Fatal("5 values have no 95% interval for the median (1/32 > 0.025), got one")
	}
}
