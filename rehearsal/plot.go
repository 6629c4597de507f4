package rehearsal

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/rocksleak/rocksleak/gate"
	"github.com/rocksleak/rocksleak/results/plotmark"
	"github.com/rocksleak/rocksleak/schema"
)

// Size of the rehearsal's figure: 10 × 7 in at 96 dpi, 960 × 672 pixels.
const (
	pngWidth  = 10 * vg.Inch
	pngHeight = 7 * vg.Inch
	pngDPI    = 96

	mib = 1 << 20
)

// ErrNothingToPlot is returned by WritePNG for a rehearsal without phases
// or samples.
var ErrNothingToPlot = errors.New("rehearsal: nothing to plot")

// WritePNG draws the rehearsal's figure to path: on top each instance's RSS
// (solid) and native heap (dashed) in MiB over simulated time, one colour
// per instance; below each instance's consumer lag (age of the oldest
// unprocessed record, seconds) with the policy's lag limit. Phases are
// shaded alternately and named; a dotted vertical line in the instance's
// colour marks each version change after the start. A phase's samples carry
// no simulated time, so they are spread evenly over the phase's span.
func WritePNG(path string, r *schema.Rehearsal) error {
	b, err := RenderPNG(r)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// RenderPNG is WritePNG's figure as PNG bytes; rendering is deterministic.
func RenderPNG(r *schema.Rehearsal) ([]byte, error) {
	if r == nil || len(r.Phases) == 0 {
		return nil, ErrNothingToPlot
	}
	mem := newPanel("Upgrade rehearsal "+r.From+" → "+r.To+": memory per instance", "", "MiB")
	lag := newPanel("Consumer lag per instance", "simulated time (min)", "behind (s)")
	var mems, lags int
	for _, p := range []*plot.Plot{mem, lag} {
		for i, ph := range r.Phases {
			p.Add(band{x0: minutes(ph.StartMs), x1: minutes(ph.EndMs), shade: i%2 == 1, label: ph.Name, top: p == mem})
		}
		p.Add(plotter.NewGrid()) // over the shading
	}
	leg := plot.NewLegend()
	leg.TextStyle.Font.Size = 9
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(22)
	for idx, fi := range r.Instances {
		m, l, err := addInstance(mem, lag, &leg, r, idx, fi)
		if err != nil {
			return nil, err
		}
		mems += m
		lags += l
	}
	if mems+lags == 0 {
		return nil, ErrNothingToPlot
	}
	addKey(lag, &leg, r.Policy)
	lag.Y.Min = 0
	return encodePNG(mem, lag, leg)
}

// instanceSeries gathers instance id's points across r's phases: RSS and
// native heap (MiB, the native heap only where measured, NativeHeap >= 0)
// spread evenly over each phase's span in minutes, and lag (seconds behind)
// at its own time.
func instanceSeries(r *schema.Rehearsal, id int) (rss, nat, lagPts plotter.XYs) {
	for _, ph := range r.Phases {
		for _, ip := range ph.Instances {
			if ip.Instance != id {
				continue
			}
			n := len(ip.Samples)
			for k, s := range ip.Samples {
				x := minutes(ph.StartMs) + (minutes(ph.EndMs)-minutes(ph.StartMs))*float64(k)/float64(max(n, 1))
				rss = append(rss, plotter.XY{X: x, Y: float64(s.RSS) / mib})
				if s.NativeHeap >= 0 {
					nat = append(nat, plotter.XY{X: x, Y: float64(s.NativeHeap) / mib})
				}
			}
			for _, l := range ip.Lag {
				lagPts = append(lagPts, plotter.XY{X: minutes(l.AtMs), Y: float64(l.BehindMs) / 1000})
			}
		}
	}
	return rss, nat, lagPts
}

// addInstance draws instance fi (the idx-th, in its colour) on both panels:
// its RSS (solid) and native heap (dashed) on mem, its lag on lag, a legend
// entry when it drew a line, and a dotted vertical line at each of its version
// changes. It returns how many RSS and lag lines it added (0 or 1 each).
func addInstance(mem, lag *plot.Plot, leg *plot.Legend, r *schema.Rehearsal, idx int, fi schema.FleetInstance) (mems, lags int, err error) {
	col := instanceColour(idx)
	rss, nat, lagPts := instanceSeries(r, fi.ID)
	solid := draw.LineStyle{Color: col, Width: vg.Points(1.4)}
	dash := draw.LineStyle{Color: col, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	var thumb plot.Thumbnailer
	if len(rss) > 0 {
		l, err := plotter.NewLine(rss)
		if err != nil {
			return 0, 0, fmt.Errorf("instance %d RSS: %w", fi.ID, err)
		}
		l.LineStyle = solid
		mem.Add(l)
		thumb = l
		mems++
	}
	if len(nat) > 0 {
		l, err := plotter.NewLine(nat)
		if err != nil {
			return 0, 0, fmt.Errorf("instance %d native heap: %w", fi.ID, err)
		}
		l.LineStyle = dash
		mem.Add(l)
	}
	if len(lagPts) > 0 {
		l, err := plotter.NewLine(lagPts)
		if err != nil {
			return 0, 0, fmt.Errorf("instance %d lag: %w", fi.ID, err)
		}
		l.LineStyle = solid
		lag.Add(l)
		thumb = l
		lags++
	}
	if thumb != nil {
		leg.Add(fmt.Sprintf("instance %d (domain %d)", fi.ID, fi.Domain), thumb)
	}
	for _, v := range r.Versions {
		if v.Instance == fi.ID && v.From != "" {
			vs := draw.LineStyle{Color: col, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2.5)}}
			mem.Add(plotmark.VLine{X: minutes(v.AtMs), Style: vs})
			lag.Add(plotmark.VLine{X: minutes(v.AtMs), Style: vs})
		}
	}
	return mems, lags, nil
}

// addKey adds the line styles' key to the legend (in grey) and, when policy
// has a lag limit, draws it on lag (raising lag's top to show it) and keys it.
func addKey(lag *plot.Plot, leg *plot.Legend, policy string) {
	grey := color.Gray{Y: 80}
	leg.Add("RSS", plotmark.Horizontal(draw.LineStyle{Color: grey, Width: vg.Points(1.4)}))
	leg.Add("native heap", plotmark.Horizontal(draw.LineStyle{Color: grey, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}))
	leg.Add("version change", plotmark.Horizontal(draw.LineStyle{Color: grey, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2.5)}}))
	if limit, ok := lagLimitSeconds(policy); ok {
		lag.Add(plotmark.HLine{Y: limit, Style: draw.LineStyle{Color: limitColour, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}})
		lag.Y.Max = max(lag.Y.Max, limit*1.1)
		leg.Add("lag limit", plotmark.Horizontal(draw.LineStyle{Color: limitColour, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}))
	}
}

// encodePNG lays out the legend at the right and the two panels stacked
// beside it, their data areas aligned on x, and encodes the figure as PNG.
func encodePNG(mem, lag *plot.Plot, leg plot.Legend) ([]byte, error) {
	img := vgimg.NewWith(vgimg.UseWH(pngWidth, pngHeight), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
	dc := draw.Crop(draw.New(img), vg.Points(4), -vg.Points(6), vg.Points(2), -vg.Points(8))
	lr := leg.Rectangle(dc)
	body := dc
	body.Max.X -= lr.Max.X - lr.Min.X + vg.Points(14)
	lc := dc
	lc.Min.X = body.Max.X + vg.Points(8)
	lc.Max.Y -= vg.Points(8)
	leg.Draw(lc)
	// The two panels' data areas aligned on x, so that phases line up.
	cs := plot.Align([][]*plot.Plot{{mem}, {lag}}, draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(6)}, body)
	mem.Draw(cs[0][0])
	lag.Draw(cs[1][0])
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func minutes(ms int64) float64 { return float64(ms) / 60_000 }

// lagLimitSeconds is the policy's consumer-lag limit in seconds, if it has
// a max check on consumer_lag_max.
func lagLimitSeconds(policy string) (float64, bool) {
	p, err := gate.ParsePolicy([]byte(policy))
	if err != nil {
		return 0, false
	}
	for _, c := range p.Checks {
		if c.Metric == "consumer_lag_max" && c.Op == gate.OpMax && c.Value != nil {
			return *c.Value / 1e9, true
		}
	}
	return 0, false
}

var (
	// Tableau 10, as the run plots use.
	instancePalette = []color.RGBA{
		{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff},
		{0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
	}
	limitColour = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	shadeColour = color.RGBA{0xee, 0xee, 0xee, 0xff}
)

// instanceColour is the colour of the idx-th instance of the fleet.
func instanceColour(idx int) color.RGBA { return instancePalette[idx%len(instancePalette)] }

func newPanel(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 11
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Min = 0
	return p
}

// band is a phase: a vertical band over the data area from x0 to x1,
// shaded or not, named at the top of the memory panel.
type band struct {
	x0, x1 float64
	shade  bool
	label  string
	top    bool
}

func (b band) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := trX(b.x0), trX(b.x1)
	if b.shade {
		var path vg.Path
		path.Move(vg.Point{X: x0, Y: c.Min.Y})
		path.Line(vg.Point{X: x1, Y: c.Min.Y})
		path.Line(vg.Point{X: x1, Y: c.Max.Y})
		path.Line(vg.Point{X: x0, Y: c.Max.Y})
		path.Close()
		c.SetColor(shadeColour)
		c.Fill(path)
	}
	if b.top {
		ts := p.Title.TextStyle
		ts.Font.Size = 8
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: (x0 + x1) / 2, Y: c.Max.Y - vg.Points(2)}, b.label)
	}
}

// DataRange makes the band's x span part of the plot's range.
func (b band) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.x0, b.x1, 0, 0
}
