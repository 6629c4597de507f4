package experiment

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/rocksleak/rocksleak/harness"
	"github.com/rocksleak/rocksleak/scenarios"
)

// progress shows how far each model's child has got: a redrawn bar with rate
// and ETA on a terminal, a plain line every few seconds otherwise.
type progress struct {
	w        io.Writer
	tty      bool
	sc       scenarios.Scenario
	mu       sync.Mutex
	model    string
	begin    time.Time
	lastLine time.Time
	lastDraw time.Time
	drawn    bool
}

func newProgress(w io.Writer, sc scenarios.Scenario) *progress {
	p := &progress{w: w, sc: sc}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) event(model string, e harness.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if model != p.model {
		p.endLine()
		p.model, p.begin = model, time.Now()
		p.lastLine = p.begin
	}
	if e.Sample == nil {
		return
	}
	done := e.Sample.Lifecycles
	elapsed := time.Since(p.begin)
	frac := 0.0
	switch {
	case p.sc.Lifecycles > 0:
		frac = float64(done) / float64(p.sc.Lifecycles)
	case p.sc.Duration > 0:
		frac = elapsed.Seconds() / time.Duration(p.sc.Duration).Seconds()
	}
	frac = min(frac, 1)
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	eta := "?"
	if frac > 0 {
		eta = (time.Duration(float64(elapsed)/frac) - elapsed).Round(time.Second).String()
	}
	if p.tty {
		if time.Since(p.lastDraw) < 100*time.Millisecond && frac < 1 {
			return
		}
		p.lastDraw = time.Now()
		const width = 30
		n := int(frac * width)
		fmt.Fprintf(p.w, "\r%-12s [%s%s] %5.1f%%  %d lifecycles  %.0f/s  ETA %s   ",
			model, strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*frac, done, rate, eta)
		p.drawn = true
		return
	}
	if time.Since(p.lastLine) >= 5*time.Second {
		p.lastLine = time.Now()
		fmt.Fprintf(p.w, "%s: %d lifecycles (%.0f%%), %.0f lifecycles/s, ETA %s\n", model, done, 100*frac, rate, eta)
	}
}

func (p *progress) endLine() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
}
