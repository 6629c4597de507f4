package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// ErrUnsuitableSettler marks a settling run (Options.SettledBy) that cannot
// settle the plan: another model or workload, a run no longer than the
// planned one, another allocator, no samples. The CLI exits 2 on it.
var ErrUnsuitableSettler = errors.New("run cannot settle the plan")

// Settler is a longer run of the planned model on the same workload (the
// run a Signal's Settle command makes), given to decide the growth the
// planned run could not tell (Options.SettledBy).
type Settler struct {
	Result *schema.Result
	// Samples are its samples by model (samples.csv beside its result.json):
	// its later half and its ledger are read from them.
	Samples map[string][]schema.Sample
	Path    string // as the user named it, for people
}

// SettlerSource says which run settled a plan.
type SettlerSource struct {
	Path       string `json:"path,omitempty"`
	Seed       int64  `json:"seed"`
	Status     string `json:"status"`
	Lifecycles int64  `json:"lifecycles"`
	ElapsedNs  int64  `json:"elapsed_ns"`
}

// Who decided a signal's growth (Signal.DecidedBy).
const (
	DecidedByRun     = "run"        // the planned run's own fits
	DecidedBySettler = "settled_by" // the settling run's (Plan.Source.SettledBy)
)

// checkSettler refuses a settling run that does not measure what the planned
// run (run, model m, result r) measured, for longer: the error names the
// field (model, scenario, allocator, lifecycles, elapsed, status, samples)
// and wraps ErrUnsuitableSettler. A settler that did not complete is taken
// with allowPartial, with a warning.
func checkSettler(r *schema.Result, run *schema.Run, m string, st *Settler, allowPartial bool) (warn string, err error) {
	fail := func(field, format string, a ...any) (string, error) {
		return "", fmt.Errorf("%w: --settled-by %s: %s: %s", ErrUnsuitableSettler, st.Path, field, fmt.Sprintf(format, a...))
	}
	s := st.Result
	if s == nil {
		return fail("result", "missing")
	}
	srun := s.Runs[m]
	switch {
	case srun == nil || !slices.Contains(s.Models, m):
		return fail("model", "it ran %s, not %s", strings.Join(s.Models, ","), m)
	case scenarios.WorkloadDigest(s.Scenario) != scenarios.WorkloadDigest(r.Scenario):
		return fail("scenario", "another workload (%s): %s", s.Scenario.Name,
			strings.Join(scenarios.WorkloadDiff(r.Scenario, s.Scenario), ", "))
	case srun.Allocator != run.Allocator || s.Provenance.Allocator != r.Provenance.Allocator:
		return fail("allocator", "%s, not the planned run's %s", s.Provenance.Allocator, r.Provenance.Allocator)
	case srun.Lifecycles <= run.Lifecycles:
		return fail("lifecycles", "%d, not more than the planned run's %d", srun.Lifecycles, run.Lifecycles)
	case srun.ElapsedNs < run.ElapsedNs:
		return fail("elapsed", "%s, shorter than the planned run's %s", time.Duration(srun.ElapsedNs).Round(time.Second),
			time.Duration(run.ElapsedNs).Round(time.Second))
	case srun.Fits == nil || len(st.Samples[m]) == 0:
		return fail("samples", "no fits or no samples of %s (keep samples.csv beside its result.json)", m)
	case s.Status != schema.StatusComplete && !allowPartial:
		return fail("status", "%s (%s); --allow-partial settles with it anyway", s.Status, strings.Join(s.Errors, "; "))
	case s.Status != schema.StatusComplete:
		return fmt.Sprintf("the settling run's status is %s (%s)", s.Status, strings.Join(s.Errors, "; ")), nil
	}
	return "", nil
}

// settling is the settling run read as a projection onto the plan's
// topology: its own classification (projection.grow), its later half's fits
// of both signals, and its resident cost.
type settling struct {
	projection
	run      *schema.Run
	laterAll map[string]schema.SignalFit
	desc     string // the run for people: its path, lifecycles and time
}

// newSettling reads st's run of model as pc reads the planned run; a later
// half that cannot be fitted leaves laterAll empty (its growth is then
// classified by its whole-run fits alone) and returns a warning.
func newSettling(pc projection, st *Settler, model string) (settling, string) {
	run, samples := st.Result.Runs[model], schema.BetweenLifecycles(st.Samples[model])
	ps := settling{projection: pc, run: run}
	ps.growing, ps.later, ps.laterFrom = nil, nil, 0
	if run.Resident != nil && run.Resident.OpenDBs > 0 {
		ps.scale = pc.ev.LiveDBs / run.Resident.OpenDBs
	}
	ps.desc = fmt.Sprintf("the longer run %s (%d lifecycles, %s)", st.Path, run.Lifecycles,
		shortDuration(time.Duration(run.ElapsedNs).Round(time.Minute)))
	warn := ps.readSamples(st.Samples[model]) // the timer's and the ledger's rules, as for the planned run
	all, from, err := analysis.LaterHalfFits(samples, analysis.SignalNativeHeap, analysis.SignalRSS)
	if err != nil {
		return ps, fmt.Sprintf("%s: its later half could not be fitted (%v): its growth is classified by its whole-run fits", ps.desc, err)
	}
	ps.laterAll, ps.laterFrom = all, from
	return ps, warn
}

// settle decides s, growth the planned run left undetermined or not
// significant, by the settling run's fits, in this order:
//
//  1. no significant growth over the settling run (its total fit's interval
//     reaches 0), or none in its later half: bounded at the level it held,
//     its resident cost per open DB above the planned run's (levelAt);
//  2. its own classification (projection.grow): bounded at a level reached
//     within it, or sustained by a leak verdict or a ledger kind that rises
//     with lifecycles (the native heap's, at its later half's rate);
//  3. else, growth still significant in its later half: sustained at the
//     later half's rate when nothing shows that rate falling (falling);
//     when something does, still a band, its high end at the later half's
//     rate (never the whole run's or the planned run's), with the command
//     that would settle it.
//
// s keeps its resident cost, its timer backlog held and the planned run's
// Reason; Settled says what the settling run decided and why, and s is
// projected again. A settling run without a valid fit of the signal leaves
// s as it was and says so.
func (ps settling) settle(s *Signal) {
	fit, ok := ps.run.Fits[s.Signal]
	if !ok || fit.Total == nil || !fit.Total.PerLifecycle.Valid {
		s.Settled = ps.desc + " has no valid " + s.Signal + " fit: projected as this run measured it"
		return
	}
	g := Signal{Signal: s.Signal, Growth: GrowthNone, TimerHeld: s.TimerHeld, ResidentPerDB: s.ResidentPerDB,
		Resident: s.Resident, TotalPerLifecycle: s.TotalPerLifecycle}
	tot := fit.Total.PerLifecycle
	header := fmt.Sprintf("%s: total %s/lifecycle [%s, %s] (95%%): ", ps.desc, signedBytes(tot.Value),
		units.FormatBytes(tot.Low), units.FormatBytes(tot.High))
	later, laterOK := ps.laterAll[s.Signal]
	laterOK = laterOK && later.Total != nil && later.Total.PerLifecycle.Valid
	var why string
	switch {
	case tot.Low <= 0:
		why = ps.levelAt(&g, tot, fit.Total.WarmupEndLifecycles, "no significant growth")
	default:
		ps.grow(&g, fit, ps.run) // sets g.Reason to its classification
		why = g.Reason
		if g.Growth != GrowthUndetermined || !laterOK {
			break
		}
		if lt := later.Total.PerLifecycle; lt.Low <= 0 {
			why = ps.levelAt(&g, lt, float64(ps.laterFrom), "no significant growth in its later half")
			break
		}
		why = ps.atLaterRate(&g, later, falling(fit, later), why)
	}
	g.Settled, g.Reason, g.DecidedBy = header+why, s.Reason, DecidedBySettler
	*s = g
	s.project(ps.ev.Lifecycles, ps.budget, ps.days)
}

// levelAt makes g bounded at the level the settling run held: its resident
// cost per open DB above the planned run's (g.ResidentPerDB), for
// production's open DBs, 95% of it reached by lifecycle reachedAt (scaled to
// production's open DBs, as a fitted bound is); it returns why, from what and
// e, the estimate that shows no growth.
func (ps settling) levelAt(g *Signal, e stats.Estimate, reachedAt float64, what string) string {
	var perDB float64
	if res := ps.run.Resident; res != nil {
		perDB = res.NativeHeapPerDB
		if g.Signal == analysis.SignalRSS {
			perDB = res.RSSPerDB
		}
	}
	rise := math.Max(0, perDB-g.ResidentPerDB) * ps.ev.LiveDBs
	g.Growth, g.Sustained = GrowthBounded, false
	g.BoundRise, g.BoundTauLifecycles = rise, math.Max(reachedAt, 1)*ps.scale/math.Log(20)
	g.Settle, g.SettleWhy, g.SettleThen = "", "", ""
	return fmt.Sprintf("bounded: %s (%s/lifecycle [%s, %s]); projected at the level it held: %s per open DB, %s "+
		"above this run's", what, signedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High),
		units.FormatBytes(perDB), units.FormatBytes(math.Max(0, perDB-g.ResidentPerDB)))
}

// atLaterRate projects g, significant growth the settling run's own
// classification left undetermined, at the rate of its later half (later,
// from lifecycle ps.laterFrom on; failed closes at the run's rate, as the
// ledger's rule): linearly when the rate is not falling (isFalling empty),
// else as a band whose high end is that rate and whose bounded end grow set
// (why is grow's reason). It returns why it is projected so.
func (ps settling) atLaterRate(g *Signal, later schema.SignalFit, isFalling, why string) string {
	e := later.Total.PerLifecycle
	g.CostPerLifecycle = clamped(e).less(g.TimerPerLifecycle.Expected)
	g.CostPerFailedClose = Range{}
	g.GrowthPerDay = g.CostPerLifecycle.scale(ps.ev.Lifecycles)
	g.LaterFrom = ps.laterFrom
	rate := fmt.Sprintf("its later half (lifecycle %d on) grows %s/lifecycle [%s, %s] (95%%)", ps.laterFrom,
		signedBytes(e.Value), units.FormatBytes(e.Low), units.FormatBytes(e.High))
	if isFalling == "" {
		g.Growth, g.Sustained = GrowthSustained, true
		g.BoundRise, g.BoundTauLifecycles = 0, 0
		g.Settle, g.SettleWhy, g.SettleThen = "", "", ""
		return "sustained: " + rate + " and nothing shows that rate falling; projected linearly at it"
	}
	return why + "; " + rate + ", but " + isFalling + ": not projected as sustained; the band's high end is that rate"
}

// falling says what in the settling run's fits (whole, later: its later
// half's) shows its growth rate falling, "" when nothing does: a fitted level
// (reached or not), the growth-slows flag, or a second half whose rate's
// interval lies wholly below the first half's.
func falling(whole, later schema.SignalFit) string {
	for _, f := range []*schema.SignalFit{whole.Total, later.Total} {
		if f == nil {
			continue
		}
		if b := f.Bound; b != nil && b.Fitted {
			return fmt.Sprintf("its fit approaches a level %s above its start by lifecycle %.0f", signedBytes(b.Rise), b.ReachedAt)
		}
		if slices.Contains(f.Flags, stats.FlagSlows) {
			return "its growth slows (the curvature's rates " + ratesOf(f.CurvatureRates) + ")"
		}
		if h := f.Halves; len(h) == 2 && h[0].Valid && h[1].Valid && h[1].High < h[0].Low {
			return fmt.Sprintf("its second half's rate %s/lifecycle lies below its first half's %s", signedBytes(h[1].Value),
				signedBytes(h[0].Value))
		}
	}
	return ""
}

// ratesOf formats a fit's two curvature rates per lifecycle, first → last.
func ratesOf(r []float64) string {
	if len(r) != 2 {
		return "not recorded"
	}
	return fmt.Sprintf("%s → %s per lifecycle", signedBytes(r[0]), signedBytes(r[1]))
}

// settleBy settles p's undetermined and not significant signals by
// opt.SettledBy, when given, after checking it fits the planned run (run of
// result r); the signals the run decided (bounded, sustained) stay its own.
func (p *Plan) settleBy(pc projection, r *schema.Result, run *schema.Run, opt Options) error {
	st := opt.SettledBy
	if st == nil {
		return nil
	}
	warn, err := checkSettler(r, run, p.Source.Model, st, opt.AllowPartial)
	if err != nil {
		return err
	}
	srun := st.Result.Runs[p.Source.Model]
	p.Source.SettledBy = &SettlerSource{Path: st.Path, Seed: st.Result.Provenance.Seed, Status: st.Result.Status,
		Lifecycles: srun.Lifecycles, ElapsedNs: srun.ElapsedNs}
	ps, w := newSettling(pc, st, p.Source.Model)
	for _, x := range []string{warn, w} {
		if x != "" {
			p.Warnings = append(p.Warnings, x)
		}
	}
	for i := range p.Signals {
		if g := p.Signals[i].Growth; g == GrowthUndetermined || g == GrowthNone {
			ps.settle(&p.Signals[i])
		}
	}
	return nil
}
