package results

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/results/plotmark"
	"github.com/rocksleak/rocksleak/schema"
)

// Size of every plot: 8 × 5 in at 96 dpi, 768 × 480 pixels.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 5 * vg.Inch
	plotDPI    = 96
)

// ErrNoSamples is returned by Plots when no model of the result has samples.
var ErrNoSamples = errors.New("no samples to plot")

// Plots renders the run's figures as PNGs (768 × 480 px), one colour and glyph
// per model:
//
//   - one per signal with a plot in analysis' registry (PlotNativeHeap and
//     PlotRSS): the signal in MiB against lifecycles, every
//     sample, the lifecycle-only fit (Total) as a line over the samples it
//     used, and a dashed vertical line at the lifecycle count of the first
//     used sample when a warm-up was cut.
//   - PlotLedger: live native objects from the ledger against lifecycles, all
//     kinds summed, and options, cf_handle and db alone.
//
// samples are each model's samples in the order they were analysed (as
// SamplesByModel or ReadSamplesCSV give them): the fits' warm-up cuts index
// into them. Models without samples are left out; ErrNoSamples when none has
// any.
func Plots(r *schema.Result, samples map[string][]schema.Sample) (Files, error) {
	var models []string
	for _, m := range r.Models {
		if len(samples[m]) > 0 {
			models = append(models, m)
		}
	}
	if len(models) == 0 {
		return nil, ErrNoSamples
	}
	files := Files{}
	for _, d := range analysis.Registered() {
		if d.Plot == nil {
			continue
		}
		b, err := signalPlot(r, samples, models, d.Key, d.Plot.Title, d.Plot.YLabel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Plot.File, err)
		}
		files[d.Plot.File] = b
	}
	b, err := ledgerPlot(r, samples, models)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PlotLedger, err)
	}
	files[PlotLedger] = b
	return files, nil
}

// reportPlots writes the report's section that links to the PNGs of Plots.
func reportPlots(b *bytes.Buffer) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Plots\n\n")
	p("Each signal against lifecycles, one colour per model: the samples, the fitted line over the samples used, and a " +
		"dashed line where the warm-up cut ends.\n\n")
	for _, d := range analysis.Registered() {
		if d.Plot != nil {
			p("![%s against lifecycles](%s)\n\n", d.Name, d.Plot.File)
		}
	}
	p("![live native objects against lifecycles](%s)\n\n", PlotLedger)
}

const mib = 1 << 20

func signalPlot(r *schema.Result, samples map[string][]schema.Sample, models []string, sig, title, ylabel string) ([]byte, error) {
	p := newPlot(title, "store lifecycles", ylabel)
	leg := newLegend()
	var cutShown bool
	for _, m := range models {
		ss := samples[m]
		st := modelStyle(r, m)
		pts := make(plotter.XYs, len(ss))
		for i, s := range ss {
			pts[i] = plotter.XY{X: float64(s.Lifecycles), Y: analysis.SignalValue(s, sig) / mib}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: st.faded, Radius: vg.Points(2.2), Shape: st.shape}
		p.Add(sc)
		label, thumbs := m, []plot.Thumbnailer{sc}

		if f := totalFit(r.Runs[m], sig); f != nil && len(ss) > 0 {
			first, last := f.WarmupEndLifecycles, float64(ss[len(ss)-1].Lifecycles)
			y := func(l float64) float64 { return (f.Intercept + f.PerLifecycle.Value*l) / mib }
			line, err := plotter.NewLine(plotter.XYs{{X: first, Y: y(first)}, {X: last, Y: y(last)}})
			if err != nil {
				return nil, fmt.Errorf("%s fit: %w", m, err)
			}
			line.LineStyle = draw.LineStyle{Color: st.color, Width: vg.Points(2)}
			p.Add(line)
			thumbs = append(thumbs, line)
			label += "  " + units.FormatSignedBytes(f.PerLifecycle.Value) + "/lifecycle"
			if !f.PerLifecycle.Valid {
				label += " (no CI)"
			}
			if f.WarmupSamples > 0 {
				p.Add(plotmark.VLine{X: first, Style: dashed(st.color)})
				cutShown = true
			}
		}
		leg.Add(label, thumbs...)
	}
	if cutShown {
		leg.Add("end of warm-up cut", plotmark.Horizontal(dashed(color.Gray{Y: 90})))
	}
	leg.Add("line: fit over the used samples", plotmark.Horizontal(draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(2)}))
	return render(func(dc draw.Canvas) { drawWithLegend(dc, leg, func(c draw.Canvas) { p.Draw(c) }) })
}

// ledgerPanels are the ledger plots: all kinds summed, then single kinds.
var ledgerPanels = []struct{ title, kind string }{
	{"all kinds", ""}, {"options", "options"}, {"cf_handle", "cf_handle"}, {"db", "db"},
}

func ledgerPlot(r *schema.Result, samples map[string][]schema.Sample, models []string) ([]byte, error) {
	plots := [][]*plot.Plot{make([]*plot.Plot, 2), make([]*plot.Plot, 2)}
	leg := newLegend()
	for i, panel := range ledgerPanels {
		p := newPlot("live "+panel.title, "", "")
		p.Title.TextStyle.Font.Size = 11
		if i >= 2 {
			p.X.Label.Text = "store lifecycles"
		}
		if i%2 == 0 {
			p.Y.Label.Text = "live objects"
		}
		for _, m := range models {
			ss := samples[m]
			st := modelStyle(r, m)
			pts := make(plotter.XYs, len(ss))
			for j, s := range ss {
				pts[j] = plotter.XY{X: float64(s.Lifecycles), Y: float64(liveCount(s, panel.kind))}
			}
			line, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m, err)
			}
			line.LineStyle = draw.LineStyle{Color: st.color, Width: vg.Points(1.5), Dashes: st.dashes}
			sc.GlyphStyle = draw.GlyphStyle{Color: st.color, Radius: vg.Points(1.8), Shape: st.shape}
			p.Add(line, sc)
			if i == 0 {
				leg.Add(m, line, sc)
			}
		}
		plots[i/2][i%2] = p
	}
	return render(func(dc draw.Canvas) {
		title := draw.Canvas{Canvas: dc.Canvas, Rectangle: dc.Rectangle}
		ts := newPlot("", "", "").Title.TextStyle
		ts.Font.Size = 12
		ts.XAlign = draw.XCenter
		ts.YAlign = draw.YTop
		title.FillText(ts, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(4)},
			"Live native objects (ledger) against lifecycles")
		body := dc
		body.Max.Y -= vg.Points(22)
		drawWithLegend(body, leg, func(c draw.Canvas) {
			tiles := draw.Tiles{Rows: 2, Cols: 2, PadX: vg.Points(12), PadY: vg.Points(8)}
			cs := plot.Align(plots, tiles, c)
			for j := range plots {
				for i := range plots[j] {
					plots[j][i].Draw(cs[j][i])
				}
			}
		})
	})
}

// liveCount is a sample's live native objects of kind, or of every kind
// when kind is "".
func liveCount(s schema.Sample, kind string) int64 {
	if kind != "" {
		return s.LiveNatives[kind]
	}
	var n int64
	for _, v := range s.LiveNatives {
		n += v
	}
	return n
}

type style struct {
	color, faded color.Color
	shape        draw.GlyphDrawer
	dashes       []vg.Length // of ledger lines, so that lines lying on each other stay visible
}

// Colours (Tableau 10) and glyphs by model, so that a model looks the same
// in every plot and every run; models beyond the four known ones take the
// next free colour in run order.
var (
	palette = []color.RGBA{
		{0xd6, 0x27, 0x28, 0xff}, // red
		{0x1f, 0x77, 0xb4, 0xff}, // blue
		{0xff, 0x7f, 0x0e, 0xff}, // orange
		{0x2c, 0xa0, 0x2c, 0xff}, // green
		{0x94, 0x67, 0xbd, 0xff}, // purple
		{0x8c, 0x56, 0x4b, 0xff}, // brown
		{0xe3, 0x77, 0xc2, 0xff}, // pink
		{0x7f, 0x7f, 0x7f, 0xff}, // grey
		{0xbc, 0xbd, 0x22, 0xff}, // olive
		{0x17, 0xbe, 0xcf, 0xff}, // cyan
	}
	glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
		draw.RingGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.PlusGlyph{}}
	lineDashes  = [][]vg.Length{nil, nil, {vg.Points(7), vg.Points(4)}, {vg.Points(2), vg.Points(3)}}
	knownModels = []string{"leaky", "fixed", "options-fix", "finally-fix"}
)

func modelStyle(r *schema.Result, model string) style {
	idx := slices.Index(knownModels, model)
	if idx < 0 {
		// After the known models, by position among the unknown ones.
		idx = len(knownModels)
		for _, m := range r.Models {
			if m == model {
				break
			}
			if !slices.Contains(knownModels, m) {
				idx++
			}
		}
	}
	c := palette[idx%len(palette)]
	faded := c
	faded.A = 0x90
	// Premultiplied alpha: scale the channels with it.
	faded.R = uint8(uint16(c.R) * 0x90 / 0xff)
	faded.G = uint8(uint16(c.G) * 0x90 / 0xff)
	faded.B = uint8(uint16(c.B) * 0x90 / 0xff)
	return style{color: c, faded: faded, shape: glyphs[idx%len(glyphs)], dashes: lineDashes[idx%len(lineDashes)]}
}

func dashed(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Min = 0
	p.X.Tick.Marker = niceTicks{n: 8, integer: true}
	p.Y.Tick.Marker = niceTicks{n: 6}
	p.Add(plotter.NewGrid())
	return p
}

// niceTicks places about n labelled ticks at multiples of 1, 2, 2.5 or 5
// times a power of ten (at least 1 when integer), with a minor tick between
// each pair.
type niceTicks struct {
	n       int
	integer bool
}

func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / float64(t.n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if t.integer && step < 1 {
		step = 1
	}
	decimals := -int(math.Floor(math.Log10(step) + 1e-9))
	if m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9)); math.Abs(m-2.5) < 1e-9 {
		decimals++
	}
	decimals = max(decimals, 0)
	var ticks []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if v == 0 {
			v = 0 // not -0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		if mid := v + step/2; mid <= hi && (!t.integer || step >= 2) {
			ticks = append(ticks, plot.Tick{Value: mid})
		}
	}
	return ticks
}

func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = 9
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(22)
	l.Padding = vg.Points(3)
	return l
}

// drawWithLegend draws the legend at the top right of dc, outside the plot
// area, and the plot in the rest.
func drawWithLegend(dc draw.Canvas, leg plot.Legend, drawPlot func(draw.Canvas)) {
	rect := leg.Rectangle(dc)
	w := rect.Max.X - rect.Min.X + vg.Points(14)
	pc := dc
	pc.Max.X -= w
	drawPlot(pc)
	lc := dc
	lc.Min.X = pc.Max.X + vg.Points(8)
	lc.Max.Y -= vg.Points(8)
	leg.Draw(lc)
}

// render draws onto a white 768 × 480 canvas and encodes it as PNG.
func render(drawFn func(draw.Canvas)) ([]byte, error) {
	img := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI),
		vgimg.UseBackgroundColor(color.White))
	drawFn(draw.Crop(draw.New(img), vg.Points(4), -vg.Points(6), vg.Points(2), -vg.Points(8)))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
