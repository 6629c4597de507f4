package results

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
)

func readTestSamples(t *testing.T, name string) map[string][]schema.Sample {
	t.Helper()
	s, err := schema.ReadSamplesCSV(filepath.Join("testdata", name, "samples.csv"))
	require.NoError(t, err)
	return s
}

func TestPlots(t *testing.T) {
	for _, name := range []string{"smoke", "attribution"} {
		t.Run(name, func(t *testing.T) {
			r, samples := readTestResult(t, name), readTestSamples(t, name)
			files, err := Plots(r, samples)
			require.NoError(t, err)
			require.ElementsMatch(t, []string{PlotNativeHeap, PlotRSS, PlotLedger}, keys(files))
			for file, b := range files {
				img, err := png.Decode(bytes.NewReader(b))
				require.NoError(t, err, file)
				assert.Equal(t, image.Rect(0, 0, 768, 480), img.Bounds(), file)
				assert.Greater(t, countNonWhite(img), 768*480/50, "%s: too few drawn pixels", file)
				// Every model's colour is drawn, at full strength somewhere
				// (a fit line, a ledger line).
				for _, m := range r.Models {
					c := modelStyle(r, m).color.(color.RGBA)
					assert.True(t, hasColour(img, c), "%s: no pixel of %s's colour %v", file, m, c)
				}
			}
			// ROCKSLEAK_PLOTS_OUT=dir keeps the PNGs for a look.
			if dir := os.Getenv("ROCKSLEAK_PLOTS_OUT"); dir != "" {
				for file, b := range files {
					require.NoError(t, os.WriteFile(filepath.Join(dir, name+"-"+file), b, 0o644))
				}
			}
			// Rendering is deterministic.
			again, err := Plots(r, samples)
			require.NoError(t, err)
			for file := range files {
				assert.True(t, bytes.Equal(files[file], again[file]), "%s differs between two renderings", file)
			}
		})
	}
}

func TestPlotsSkipsModelsWithoutSamples(t *testing.T) {
	r, samples := readTestResult(t, "smoke"), readTestSamples(t, "smoke")
	delete(samples, "fixed")
	files, err := Plots(r, samples)
	require.NoError(t, err)
	assert.Len(t, files, 3)

	_, err = Plots(r, map[string][]schema.Sample{})
	assert.ErrorIs(t, err, ErrNoSamples)
}

func TestModelStyles(t *testing.T) {
	r := &schema.Result{Models: []string{"fixed", "zeta", "leaky", "alpha"}}
	seen := map[color.Color]string{}
	for _, m := range r.Models {
		c := modelStyle(r, m).color
		assert.NotContains(t, seen, c, "%s has the colour of %s", m, seen[c])
		seen[c] = m
	}
	// A known model looks the same whatever else ran.
	assert.Equal(t, modelStyle(&schema.Result{Models: []string{"leaky"}}, "leaky"), modelStyle(r, "leaky"))
}

func keys(f Files) []string {
	var k []string
	for name := range f {
		k = append(k, name)
	}
	return k
}

func countNonWhite(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				n++
			}
		}
	}
	return n
}

func hasColour(img image.Image, c color.RGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(bl>>8) == c.B {
				return true
			}
		}
	}
	return false
}
