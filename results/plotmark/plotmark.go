// Package plotmark holds the gonum/plot marks the reports share: lines
// across a plot's data area and a line as a legend thumbnail.
package plotmark

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// VLine is a vertical line across a plot's data area at X.
type VLine struct {
	X     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (v VLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.X)
	c.StrokeLine2(v.Style, x, c.Min.Y, x, c.Max.Y)
}

// HLine is a horizontal line across a plot's data area at Y.
type HLine struct {
	Y     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (h HLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.Y)
	c.StrokeLine2(h.Style, c.Min.X, y, c.Max.X, y)
}

// Horizontal is a legend thumbnail: a horizontal line in its style.
type Horizontal draw.LineStyle

// Thumbnail implements plot.Thumbnailer.
func (h Horizontal) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(draw.LineStyle(h), c.Min.X, y, c.Max.X, y)
}
