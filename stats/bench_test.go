package stats

import (
	"fmt"
	"testing"
)

func benchInput(n int) Input {
	return synth(n, line(11000), ar1(seeded(1), n, 0.7, 20000))
}

func BenchmarkTheilSen(b *testing.B) {
	for _, n := range []int{500, 20000} {
		in := benchInput(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				TheilSen(in.Lifecycles, in.Y)
			}
		})
	}
}

func BenchmarkFitSignal(b *testing.B) {
	for _, n := range []int{500, 20000} {
		in := benchInput(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := FitSignal(in, DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
