// Package plan projects a model's measured memory costs onto a production
// topology: how much native heap and RSS a deployment holds and gains per
// day, and when it reaches its budget.
//
// # Events per day
//
// Every store rolls one segment per segment interval (one RocksDB instance
// opened and one closed: one lifecycle), and a rebalance closes and reopens
// every live segment of every task it moves:
//
//	lifecycles/day    = tasks × stores × (86,400,000 ms / segment_interval)
//	                  + rebalances/day × rebalance_share × tasks × stores × live_segments
//	failed closes/day = lifecycles/day × close_failure_rate
//
// # Costs
//
// From the model's two-counter fit (Y ~ 1 + lifecycles + failed closes) of
// each signal (native heap, RSS): the cost per lifecycle and per failed
// close, each low / expected / high from the 95% interval (low, high) and
// the point estimate, every one clamped at 0 (a projection of memory given
// back by closing stores is not a capacity plan). Growth per day is, exactly,
//
//	cost_per_lifecycle × lifecycles/day + cost_per_failed_close × failed_closes/day
//
// A signal is projected only when its growth is sustained: the 95% interval
// of the total growth per lifecycle (Y ~ 1 + lifecycles, the fit verdicts
// use) lies above 0. Otherwise the plan says "no sustained growth" for it
// and projects the resident cost alone.
//
// # Resident cost and budget
//
// The live store instances cost tasks × stores × live_segments × the
// result's resident cost per open DB (Resident.NativeHeapPerDB, RSSPerDB),
// read from the same model or, better for a leaking model, from one that
// does not leak (Options.ResidentModel). Usage at day d is resident + growth
// × d; the budget is reached after (budget − resident) / growth days, for
// the low, expected and high growth: "never" when the growth is 0, "already
// over" when the resident cost alone exceeds it.
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
	"github.com/rocksleak/rocksleak/schema"
)

// ErrUnusableResult marks a result a plan cannot be made from: a model that
// is not in it, or a run that did not complete. The CLI exits 2 on it.
var ErrUnusableResult = errors.New("result cannot be planned from")

// Options selects what a plan is made from.
type Options struct {
	// Model is the model whose costs are projected. Empty: the result's only
	// model (an error when it has several).
	Model string
	// ResidentModel is the model whose resident cost per open DB is used.
	// Empty: Model.
	ResidentModel string
	// AllowPartial plans from a failed or interrupted run.
	AllowPartial bool
	// Samples are the result's samples by model (samples.csv beside
	// result.json): Model's give the run's timer backlog, the per-time cost
	// taken out of the cost per lifecycle. Without them the plan cannot
	// separate it and says so.
	Samples map[string][]schema.Sample
	// ResultPath is the result as the user named it, for the commands the
	// plan prints ("R.json" when empty).
	ResultPath string
	// SettledBy, when set, is a longer run of Model on the same workload:
	// its fits decide the growth the result's run could not tell
	// (undetermined or not significant; see settling.settle). One that does
	// not fit is refused (ErrUnsuitableSettler).
	SettledBy *Settler
}

// The states of a Reach.
const (
	ReachDays        = "days"         // Days holds when the budget is reached
	ReachNever       = "never"        // no growth: never reached
	ReachAlreadyOver = "already_over" // the resident cost alone exceeds the budget
)

// Reach is when a budget is reached at one growth rate.
type Reach struct {
	State string  `json:"state"`
	Days  float64 `json:"days"` // from now; 0 unless State is "days"
}

// Reaches are the Reach at the low, expected and high growth.
type Reaches struct {
	Low      Reach `json:"low"`
	Expected Reach `json:"expected"`
	High     Reach `json:"high"`
}

// Usage is the projected usage at a day, in bytes.
type Usage struct {
	Day float64 `json:"day"`
	Range
}

// Signal is the projection of one signal. Bytes, bytes per event, bytes per
// day.
type Signal struct {
	Signal string `json:"signal"` // "native_heap" or "rss"
	// Sustained is true when the total growth per lifecycle is significantly
	// positive; only then is growth projected (GrowthPerDay is 0 otherwise).
	Sustained bool `json:"sustained"`
	// Growth is how that growth is projected: GrowthNone, GrowthBounded,
	// GrowthSustained or GrowthUndetermined (see them).
	Growth string `json:"growth"`
	// Settle is the command that would tell undetermined growth apart, as a
	// user pastes it; SettleWhy says why it runs that long; SettleThen is
	// this plan again, settled by that run's result (--settled-by).
	Settle     string `json:"settle,omitempty"`
	SettleWhy  string `json:"settle_why,omitempty"`
	SettleThen string `json:"settle_then,omitempty"`
	// Ledger are the kinds of native object whose live count the run's
	// ledger saw rise with lifecycles (analysis.GrowingKinds): when any does,
	// significant growth is sustained, projected linearly at the rate of the
	// run's later half (LaterFrom on).
	Ledger    []analysis.LedgerGrowth `json:"ledger_growth,omitempty"`
	LaterFrom int64                   `json:"later_from_lifecycle,omitempty"`
	// BoundRise and BoundTauLifecycles are the bounded end of the
	// projection, production's: the level the growth approaches above the
	// start (bytes) and its time constant (lifecycles), scaled from the
	// run's by production's open DBs over the run's; 0 when there is none.
	BoundRise          float64 `json:"bound_rise"`
	BoundTauLifecycles float64 `json:"bound_tau_lifecycles"`
	// TimerPerLifecycle is the share of the run's growth per lifecycle that
	// is RocksDB's timer backlog at the run's pace (a per-time cost), taken
	// out of CostPerLifecycle; TimerHeld is production's own backlog in
	// bytes, held from its first 10 minutes on (see timerBytesPerEntry).
	TimerPerLifecycle Range `json:"timer_per_lifecycle"`
	TimerHeld         Range `json:"timer_held"`
	// Reason says why the growth is or is not projected, with the numbers:
	// the planned run's reading, also when a settling run decided it.
	Reason string `json:"reason"`
	// DecidedBy is whose fits decided the growth: DecidedByRun, or
	// DecidedBySettler, which Settled then explains (see settling.settle).
	DecidedBy string `json:"decided_by"`
	Settled   string `json:"settled,omitempty"`
	// TotalPerLifecycle is the total fit's growth per lifecycle and its 95%
	// interval (low, high), unclamped: the significance test.
	TotalPerLifecycle  Range   `json:"total_per_lifecycle"`
	CostPerLifecycle   Range   `json:"cost_per_lifecycle"`
	CostPerFailedClose Range   `json:"cost_per_failed_close"`
	GrowthPerDay       Range   `json:"growth_per_day"`
	ResidentPerDB      float64 `json:"resident_per_db"`
	Resident           float64 `json:"resident"`
	// UntilBudget is nil when there is no budget.
	UntilBudget *Reaches `json:"until_budget"`
	Usage       []Usage  `json:"usage"`
}

// Events are the projected events per day.
type Events struct {
	SegmentRolls       float64 `json:"segment_rolls_per_day"`
	RebalanceReopens   float64 `json:"rebalance_reopens_per_day"`
	Lifecycles         float64 `json:"lifecycles_per_day"`
	FailedCloses       float64 `json:"failed_closes_per_day"`
	LiveDBs            float64 `json:"live_dbs"`
	MeasuredCloseRate  float64 `json:"measured_close_failure_rate"` // the result's failed closes / lifecycles
	MeasuredLifecycles int64   `json:"measured_lifecycles"`
}

// Source says which result and models a plan was made from.
type Source struct {
	Path           string `json:"path,omitempty"` // set by the caller
	Scenario       string `json:"scenario"`
	ScenarioDigest string `json:"scenario_digest"`
	Seed           int64  `json:"seed"`
	Status         string `json:"status"`
	Model          string `json:"model"`
	ResidentModel  string `json:"resident_model"`
	// SettledBy is the run that settled the plan, nil when none did.
	SettledBy *SettlerSource `json:"settled_by,omitempty"`
}

// Plan is a capacity projection. Numbers are raw (bytes, days, counts).
type Plan struct {
	Topology Topology  `json:"topology"`
	Source   Source    `json:"source"`
	Events   Events    `json:"events"`
	Signals  []Signal  `json:"signals"`
	Budget   float64   `json:"budget"` // bytes; 0 means none
	Horizon  float64   `json:"horizon_days"`
	Days     []float64 `json:"days"` // the days Usage is listed at
	Warnings []string  `json:"warnings"`
}

// EventsPerDay computes the events per day of a topology (see the package
// documentation). t must be valid.
func EventsPerDay(t Topology) Events {
	stores := float64(t.Tasks) * float64(t.StoresPerTask)
	rollsPerStore := float64(Day/time.Millisecond) / (float64(t.SegmentInterval) / float64(time.Millisecond))
	e := Events{
		SegmentRolls:     stores * rollsPerStore,
		RebalanceReopens: t.RebalancesPerDay * t.RebalanceShare * stores * float64(t.LiveSegments),
		LiveDBs:          stores * float64(t.LiveSegments),
	}
	e.Lifecycles = e.SegmentRolls + e.RebalanceReopens
	e.FailedCloses = e.Lifecycles * t.CloseFailureRate
	return e
}

// ReachBudget is when usage resident + growth × d reaches budget (> 0).
func ReachBudget(budget, resident, growth float64) Reach {
	switch {
	case resident > budget:
		return Reach{State: ReachAlreadyOver}
	case growth <= 0:
		return Reach{State: ReachNever}
	}
	return Reach{State: ReachDays, Days: (budget - resident) / growth}
}

// UsageDays returns the days usage is listed at: 1, 7 and 30 within the
// horizon, and the horizon itself.
func UsageDays(horizonDays float64) []float64 {
	var days []float64
	for _, d := range []float64{1, 7, 30} {
		if d <= horizonDays {
			days = append(days, d)
		}
	}
	if !slices.Contains(days, horizonDays) {
		days = append(days, horizonDays)
	}
	return days
}

// Project makes the plan of topology t (validated here) from the result r.
// Errors wrap ErrInvalidTopology or ErrUnusableResult.
func Project(r *schema.Result, t Topology, opt Options) (*Plan, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("%w: missing result", ErrUnusableResult)
	}
	model := opt.Model
	if model == "" {
		if len(r.Models) != 1 {
			return nil, fmt.Errorf("%w: the result has models %s: name one with --model", ErrUnusableResult,
				strings.Join(r.Models, ","))
		}
		model = r.Models[0]
	}
	resModel := opt.ResidentModel
	if resModel == "" {
		resModel = model
	}
	for _, m := range []string{model, resModel} {
		if run, ok := r.Runs[m]; !ok || run == nil || !slices.Contains(r.Models, m) {
			return nil, fmt.Errorf("%w: no model %q in the result (it has %s)", ErrUnusableResult, m,
				strings.Join(r.Models, ","))
		}
	}
	p := &Plan{Topology: t, Budget: float64(t.Budget), Horizon: t.Horizon.Days(), Warnings: []string{},
		Source: Source{Scenario: r.Scenario.Name, ScenarioDigest: r.Provenance.ScenarioDigest,
			Seed: r.Provenance.Seed, Status: r.Status, Model: model, ResidentModel: resModel}}
	if r.Status != schema.StatusComplete {
		msg := fmt.Sprintf("the result's status is %s (%s)", r.Status, strings.Join(r.Errors, "; "))
		if !opt.AllowPartial {
			return nil, fmt.Errorf("%w: %s; --allow-partial plans from it anyway", ErrUnusableResult, msg)
		}
		p.Warnings = append(p.Warnings, msg)
	}
	run, resRun := r.Runs[model], r.Runs[resModel]
	if run.Fits == nil {
		return nil, fmt.Errorf("%w: model %s has no fits (it produced no samples)", ErrUnusableResult, model)
	}
	p.Events = EventsPerDay(t)
	p.Events.MeasuredLifecycles = run.Lifecycles
	if run.Lifecycles > 0 {
		p.Events.MeasuredCloseRate = float64(run.FailedCloses) / float64(run.Lifecycles)
	}
	p.Days = UsageDays(p.Horizon)
	if resRun.Verdict != nil && resRun.Verdict.Leak != nil && *resRun.Verdict.Leak {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the resident cost is read from model %s, which leaks: it "+
			"includes what leaked during the run; read it from a model that does not leak (--resident-model)", resModel))
	}
	if resRun.Resident == nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("model %s has no resident cost (too few samples): the live "+
			"store instances are projected at 0 bytes", resModel))
	}
	pc := projection{ev: p.Events, budget: p.Budget, days: p.Days, scenario: r.Scenario.Name, model: model, scale: 1,
		resultPath: opt.ResultPath}
	pc.timerHeld = timerBytesPerEntry.scale(productionTimerEntries(p.Events.Lifecycles))
	if w := pc.readSamples(opt.Samples[model]); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	if run.Resident != nil && run.Resident.OpenDBs > 0 {
		pc.scale = p.Events.LiveDBs / run.Resident.OpenDBs
	}
	for _, sig := range []string{analysis.SignalNativeHeap, analysis.SignalRSS} {
		s, warns := pc.signal(sig, run, resRun, r.Floors)
		p.Signals = append(p.Signals, s)
		p.Warnings = append(p.Warnings, warns...)
	}
	if err := p.settleBy(pc, r, run, opt); err != nil {
		return nil, err
	}
	settle, _ := settleRun(r.Scenario.Name, model, run.Lifecycles, time.Duration(run.ElapsedNs), nil)
	p.Warnings = append(p.Warnings, ledgerWarnings(p.Signals, pc.growing, settle,
		settledByCommand(opt.ResultPath, r.Scenario.Name, model))...)
	if !pc.timerOK {
		p.Warnings = append(p.Warnings, "no samples of the run to count its timer backlog: the cost per lifecycle "+
			"includes RocksDB's timer backlog at the run's pace (keep samples.csv beside result.json)")
	}
	return p, nil
}

// projection is what every signal's projection shares.
type projection struct {
	ev              Events
	budget          float64
	days            []float64
	scenario, model string
	resultPath      string  // as the user named it, for settledByCommand
	timerPerLC      float64 // the run's timer entries per lifecycle
	timerOK         bool
	timerHeld       Range   // production's backlog, bytes
	scale           float64 // production's open DBs over the run's
	// growing are the ledger kinds that rise with lifecycles; later the
	// native heap's fit over the run's later half (from lifecycle
	// laterFrom), made when any does.
	growing   []analysis.LedgerGrowth
	later     map[string]schema.SignalFit
	laterFrom int64
}

func (pc projection) signal(sig string, run, resRun *schema.Run, floors schema.VerdictFloors) (Signal, []string) {
	ev, budget, days := pc.ev, pc.budget, pc.days
	s := Signal{Signal: sig, Growth: GrowthNone, TimerHeld: pc.timerHeld, DecidedBy: DecidedByRun}
	var warns []string
	if res := resRun.Resident; res != nil {
		s.ResidentPerDB = res.NativeHeapPerDB
		if sig == analysis.SignalRSS {
			s.ResidentPerDB = res.RSSPerDB
		}
	}
	s.Resident = ev.LiveDBs * s.ResidentPerDB
	fit, ok := run.Fits[sig]
	switch {
	case !ok:
		s.Reason = "no sustained growth projected: the result has no " + sig + " fit"
	case fit.Total == nil:
		s.Reason = "no sustained growth projected: the " + sig + " fit has no total (lifecycles-only) fit"
	case !fit.Total.PerLifecycle.Valid:
		s.Reason = fmt.Sprintf("no sustained growth projected: the total growth per lifecycle has no valid interval (%d of %d samples used)",
			fit.Total.SamplesUsed, fit.Total.Samples)
	default:
		tot := fit.Total.PerLifecycle
		s.TotalPerLifecycle = Range{tot.Low, tot.Value, tot.High}
		desc := fmt.Sprintf("total %s/lifecycle [%s, %s] (95%%)", signedBytes(tot.Value), units.FormatBytes(tot.Low), units.FormatBytes(tot.High))
		if tot.Low <= 0 {
			s.Reason = "no sustained growth: " + desc + " is not significantly positive; only the resident cost and the timer backlog held are projected"
			break
		}
		if !fit.PerLifecycle.Valid {
			s.Reason = "no sustained growth projected: the two-counter fit has no valid per-lifecycle interval, though " + desc
			break
		}
		s.Reason = "growth " + desc + ": "
		warns = append(warns, pc.grow(&s, fit, run)...)
	}
	s.project(ev.Lifecycles, budget, days)
	return s, warns
}

// project sets s.Usage at days and s.UntilBudget (nil when budget is 0) from
// its resident cost, its timer backlog held and its growth (growthAt), at
// lifecyclesPerDay.
func (s *Signal) project(lifecyclesPerDay, budget float64, days []float64) {
	base := Range{s.Resident, s.Resident, s.Resident}.add(s.TimerHeld)
	s.Usage, s.UntilBudget = nil, nil
	for _, d := range days {
		s.Usage = append(s.Usage, Usage{Day: d, Range: base.add(s.growthAt(d, lifecyclesPerDay))})
	}
	if budget > 0 {
		s.UntilBudget = s.untilBudget(budget, base, lifecyclesPerDay)
	}
}

// grow classifies a signal's significant growth and sets its costs, growth
// per day and bounded end. A ledger kind that rises with lifecycles makes the
// native heap's growth sustained whatever the fit's shape (ledgerSustained):
// the ledger counts objects of the native heap. RSS keeps its own
// classification: the allocator can hold it level on pages it already has
// (rssBelowLedger warns).
func (pc projection) grow(s *Signal, fit schema.SignalFit, run *schema.Run) (warns []string) {
	ev := pc.ev
	kind, why := classify(fit, run.Verdict)
	later, ok := pc.later[s.Signal] // the native heap's only
	ledger := kind != GrowthSustained && len(pc.growing) > 0 && ok && later.Total != nil && later.Total.PerLifecycle.Valid
	if ledger {
		kind, why = GrowthSustained, ledgerSustained(pc.growing, pc.laterFrom, later.Total.Fit)
		s.Ledger, s.LaterFrom = pc.growing, pc.laterFrom
	}
	s.Growth, s.Sustained = kind, kind == GrowthSustained
	s.Reason += why
	if pc.timerOK {
		s.TimerPerLifecycle = timerBytesPerEntry.scale(max(pc.timerPerLC, 0))
	}
	switch {
	case ledger:
		// The later half's total fit: its failed closes at the run's rate
		// are in its cost per lifecycle, so none is counted apart.
		s.CostPerLifecycle = clamped(later.Total.PerLifecycle).less(s.TimerPerLifecycle.Expected)
	default:
		s.CostPerLifecycle = clamped(fit.PerLifecycle).less(s.TimerPerLifecycle.Expected)
		if fit.PerFailedClose.Valid {
			s.CostPerFailedClose = clamped(fit.PerFailedClose)
		} else if ev.FailedCloses > 0 {
			warns = append(warns, fmt.Sprintf("%s: the run measured no per-failed-close cost (failed closes did not vary): failed closes are projected at 0 bytes", analysis.Describe(s.Signal).Name))
		}
	}
	s.GrowthPerDay = s.CostPerLifecycle.scale(ev.Lifecycles).add(s.CostPerFailedClose.scale(ev.FailedCloses))
	if b := boundOf(fit); b != nil && b.Fitted && kind != GrowthSustained {
		s.BoundRise, s.BoundTauLifecycles = math.Max(b.Rise, 0)*pc.scale, b.Tau*pc.scale
	} else if kind == GrowthUndetermined {
		// No fitted level: the bounded end is the growth the run saw,
		// reached when production has done as many lifecycles per store.
		s.BoundRise = s.CostPerLifecycle.Expected * float64(run.Lifecycles) * pc.scale
		s.BoundTauLifecycles = float64(run.Lifecycles) * pc.scale / math.Log(20)
	}
	if kind == GrowthUndetermined {
		s.Settle, s.SettleWhy = settleRun(pc.scenario, pc.model, run.Lifecycles, time.Duration(run.ElapsedNs), boundOf(fit))
		s.SettleThen = settledByCommand(pc.resultPath, pc.scenario, pc.model)
	}
	return warns
}
