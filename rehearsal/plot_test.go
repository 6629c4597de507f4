package rehearsal

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

func TestWritePNG(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			r := readFixture(t, f.name)
			path := filepath.Join(t.TempDir(), "rehearsal.png")
			require.NoError(t, WritePNG(path, r))
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			img, err := png.Decode(bytes.NewReader(b))
			require.NoError(t, err)
			assert.Equal(t, image.Rect(0, 0, 960, 672), img.Bounds())
			// Every instance's colour, the lag limit and the phase shading
			// are drawn.
			for idx := range r.Instances {
				assert.True(t, hasColour(img, instanceColour(idx)), "instance %d's colour", idx)
			}
			assert.True(t, hasColour(img, limitColour), "the lag limit")
			assert.True(t, hasColour(img, shadeColour), "phase shading")
			// ROCKSLEAK_PLOTS_OUT=dir keeps the PNG for a look.
			if dir := os.Getenv("ROCKSLEAK_PLOTS_OUT"); dir != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "rehearsal-"+f.name+".png"), b, 0o644))
			}
			again, err := RenderPNG(r)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(b, again), "rendering is deterministic")
		})
	}
	_, err := RenderPNG(&schema.Rehearsal{})
	assert.ErrorIs(t, err, ErrNothingToPlot)
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
