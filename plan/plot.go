package plan

import (
	"bytes"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
)

// PNG renders the projected usage of every signal over the horizon (768 × 480
// px): the expected usage as a line over its low–high band, and the budget
// as a dashed horizontal line when there is one. Usage is linear in time, so
// the band is exact.
func PNG(p *Plan) ([]byte, error) {
	pl := plot.New()
	name := p.Topology.Name
	if name == "" {
		name = "topology"
	}
	pl.Title.Text = fmt.Sprintf("Projected usage: %s, model %s", name, p.Source.Model)
	pl.X.Label.Text = "days"
	top := p.Budget
	for _, s := range p.Signals {
		top = max(top, s.Resident+s.GrowthPerDay.High*p.Horizon)
	}
	unit, div := "MiB", float64(1<<20)
	if top >= 1<<30 {
		unit, div = "GiB", float64(1<<30)
	}
	pl.Y.Label.Text = "usage (" + unit + ")"
	// Headroom above the highest line for the legend.
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, p.Horizon, 0, max(top, 1)*1.3/div
	pl.Legend.Top, pl.Legend.Left = true, true
	colors := map[string]color.NRGBA{
		"native_heap": {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		"rss":         {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	}
	at := func(s Signal, growth, d float64) float64 { return (s.Resident + growth*d) / div }
	for _, s := range p.Signals {
		c := colors[s.Signal]
		band, err := plotter.NewPolygon(plotter.XYs{
			{X: 0, Y: at(s, s.GrowthPerDay.Low, 0)}, {X: p.Horizon, Y: at(s, s.GrowthPerDay.Low, p.Horizon)},
			{X: p.Horizon, Y: at(s, s.GrowthPerDay.High, p.Horizon)}, {X: 0, Y: at(s, s.GrowthPerDay.High, 0)},
		})
		if err != nil {
			return nil, err
		}
		fill := c
		fill.A = 0x40
		band.Color, band.LineStyle.Width = fill, 0
		line, err := plotter.NewLine(plotter.XYs{
			{X: 0, Y: at(s, s.GrowthPerDay.Expected, 0)}, {X: p.Horizon, Y: at(s, s.GrowthPerDay.Expected, p.Horizon)},
		})
		if err != nil {
			return nil, err
		}
		line.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(2)}
		pl.Add(band, line)
		label := analysis.Describe(s.Signal).Name + ": expected, low–high band"
		if !s.Sustained {
			label = analysis.Describe(s.Signal).Name + ": resident only (no sustained growth)"
		}
		pl.Legend.Add(label, line, band)
	}
	if p.Budget > 0 {
		bl, err := plotter.NewLine(plotter.XYs{{X: 0, Y: p.Budget / div}, {X: p.Horizon, Y: p.Budget / div}})
		if err != nil {
			return nil, err
		}
		bl.LineStyle = draw.LineStyle{Color: color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, Width: vg.Points(1.5),
			Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
		pl.Add(bl)
		pl.Legend.Add("budget "+units.FormatBytes(p.Budget), bl)
	}
	pl.Add(plotter.NewGrid())
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(8*vg.Inch, 5*vg.Inch), vgimg.UseDPI(96))}
	pl.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
