// Package rehearsal is the analysis half of an upgrade rehearsal (`rocksleak
// rehearse`): it gates a phase's candidate instances against its baseline
// instances (Gate), analyses a whole schema.Rehearsal once (Analyze: every
// instance's fits, verdict, lag and restore figures per phase) and renders
// that analysis as Markdown and PNG. It is pure Go: it reads the record the
// run half wrote and never runs anything.
//
// Fits are the project's: analysis.FitSamples on an instance's samples over
// a phase (warm-up cut, level-shift detection, GLS intervals), so a recovery
// peak at the start of a restarted instance's phase is cut as warm-up rather
// than read as growth. Checks are package gate's (gate.EvaluateCheck), so a
// rehearsal's gate and `rocksleak gate` decide by the same rule.
package rehearsal

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// ErrInvalid marks a rehearsal record, or a gate request, that cannot be
// analysed: a phase or an instance that is not in the record, no candidate
// or no baseline, an instance on both sides.
var ErrInvalid = errors.New("invalid rehearsal")

// Analysis is a rehearsal analysed once: what every renderer draws from.
type Analysis struct {
	Rehearsal *schema.Rehearsal
	Phases    []PhaseAnalysis
}

// PhaseAnalysis is one phase: each instance's figures, and the gate as the
// rehearsal recorded it (nil when the phase was not gated).
type PhaseAnalysis struct {
	Index     int
	Name      string
	StartMs   int64
	EndMs     int64
	Restarted []int
	Instances []InstanceAnalysis
	Gate      *schema.GateRecord
}

// InstanceAnalysis is one instance over one phase. Slopes are from the
// lifecycle-only (Total) fits, the ones verdicts and gates use; byte counts
// raw.
type InstanceAnalysis struct {
	Instance  int
	Domain    int
	Model     string
	Restarted bool // restarted at the phase's start
	// Samples is the number of the instance's samples over the phase.
	Samples int
	// Fits are analysis.FitSamples of the samples; nil with FitError set
	// when they could not be fitted (no samples, malformed samples).
	Fits     map[string]schema.SignalFit
	FitError string
	// NativePerLifecycle and RSSPerMillionRecords are the slopes the gate
	// checks, with their 95% intervals (!Valid when not estimable).
	NativePerLifecycle   stats.Estimate
	RSSPerMillionRecords stats.Estimate
	// WarmupSamples is how many samples the native-heap and RSS fits cut
	// from the phase's start (the larger of the two): a restart's recovery
	// peak lands there.
	WarmupSamples int
	// Verdict is the instance's leak verdict over the phase
	// (analysis.Decide at the default floors); nil without fits.
	Verdict *schema.Verdict
	// MaxLagMs and MaxLagRecords are the worst lag over the phase (the
	// larger of the recorded maxima and the lag points); LagPoints counts
	// the points.
	MaxLagMs      int64
	MaxLagRecords int64
	LagPoints     int
	RestartNs     int64
	// Summary is the phase's counters as recorded (differences over the
	// phase) and its restores.
	Summary schema.Summary
}

// Analyze analyses every phase of r. It fails (ErrInvalid) only on a record
// it cannot read: an instance in a phase that is not in the fleet. An
// instance whose samples cannot be fitted is kept with its FitError.
func Analyze(r *schema.Rehearsal) (*Analysis, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: no rehearsal", ErrInvalid)
	}
	a := &Analysis{Rehearsal: r}
	for i := range r.Phases {
		pa, err := analyzePhase(r, i)
		if err != nil {
			return nil, err
		}
		a.Phases = append(a.Phases, pa)
	}
	return a, nil
}

// analyzePhase fits every instance of phase i.
func analyzePhase(r *schema.Rehearsal, i int) (PhaseAnalysis, error) {
	ph := r.Phases[i]
	pa := PhaseAnalysis{Index: i, Name: ph.Name, StartMs: ph.StartMs, EndMs: ph.EndMs,
		Restarted: ph.Restarted, Gate: ph.Gate}
	for _, ip := range ph.Instances {
		dom, ok := domainOf(r, ip.Instance)
		if !ok {
			return PhaseAnalysis{}, fmt.Errorf("%w: phase %q has instance %d, which is not in the fleet", ErrInvalid,
				ph.Name, ip.Instance)
		}
		pa.Instances = append(pa.Instances, analyzeInstance(ip, dom, slices.Contains(ph.Restarted, ip.Instance)))
	}
	return pa, nil
}

func domainOf(r *schema.Rehearsal, id int) (int, bool) {
	for _, fi := range r.Instances {
		if fi.ID == id {
			return fi.Domain, true
		}
	}
	return 0, false
}

func analyzeInstance(ip schema.InstancePhase, domain int, restarted bool) InstanceAnalysis {
	ia := InstanceAnalysis{Instance: ip.Instance, Domain: domain, Model: ip.Model, Restarted: restarted,
		Samples: len(ip.Samples), MaxLagMs: ip.MaxLagMs, MaxLagRecords: ip.MaxLagRecords, LagPoints: len(ip.Lag),
		RestartNs: ip.RestartNs, Summary: ip.Summary}
	for _, l := range ip.Lag {
		ia.MaxLagMs = max(ia.MaxLagMs, l.BehindMs)
		ia.MaxLagRecords = max(ia.MaxLagRecords, l.Records)
	}
	if len(ip.Samples) == 0 {
		ia.FitError = "no samples"
		return ia
	}
	fits, err := analysis.FitSamples(ip.Samples)
	if err != nil {
		ia.FitError = err.Error()
		return ia
	}
	ia.Fits = fits
	nat, rss := fits[analysis.SignalNativeHeap], fits[analysis.SignalRSS]
	if nat.Total != nil {
		ia.NativePerLifecycle = nat.Total.PerLifecycle
		ia.WarmupSamples = nat.Total.WarmupSamples
	}
	if rss.Total != nil {
		ia.RSSPerMillionRecords = rss.Total.PerMillionRecords
		ia.WarmupSamples = max(ia.WarmupSamples, rss.Total.WarmupSamples)
	}
	if nat.Total != nil && rss.Total != nil {
		ia.Verdict = analysis.VerdictOf(analysis.Decide(*nat.Total, *rss.Total, analysis.DefaultFloors()), *nat.Total, *rss.Total)
	}
	return ia
}

// instance returns the analysis of instance id in pa.
func (pa *PhaseAnalysis) instance(id int) (*InstanceAnalysis, bool) {
	for i := range pa.Instances {
		if pa.Instances[i].Instance == id {
			return &pa.Instances[i], true
		}
	}
	return nil, false
}
