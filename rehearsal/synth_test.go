package rehearsal

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/gate"
	"github.com/rocksleak/rocksleak/schema"
)

// This file generates synthetic but realistic rehearsals, deterministically:
// each instance is a process whose native heap grows per lifecycle and whose
// RSS grows per record at its model's rate (the rates measured on the
// kafka-20616 scenario), with AR(1) noise, a recovery peak after every
// (re)start, and lag that a restart stalls and that then catches up.

const (
	kib = 1 << 10

	samplesPerPhase     = 80
	lifecyclesPerSample = 5
	recordsPerLifecycle = 128
	simMsPerSample      = 10_000 // simulated time between samples
	tasksPerInstance    = 2
	recordsPerSecond    = 32.0 // per task: 2 tasks × 32/s × 10 s = 640 records = 5 lifecycles per sample
	phaseMs             = samplesPerPhase * simMsPerSample
)

// rates are a model's growth: native heap per lifecycle, RSS per million
// records (bytes), as measured (README, default.yaml): leaky 29.7 KiB and
// 208 MiB, fixed ~500 B and ~30 MiB; fixed+synthetic adds a sustained leak
// the baseline does not have.
type rates struct{ nativePerLifecycle, rssPerMillion float64 }

var modelRates = map[string]rates{
	"leaky":           {29_666, 208 * mib},
	"fixed":           {500, 30 * mib},
	"fixed+synthetic": {500 + 9*kib, 120 * mib},
}

// peak is the recovery peak after a process (re)starts: memory climbs to
// Top over the first Rise samples (restore fills memtables and the block
// cache), then settles to Plateau with a time constant of Decay samples.
type peak struct {
	nativeTop, nativePlateau float64
	rssTop, rssPlateau       float64
	rise, decay              float64
}

var defaultPeak = peak{nativeTop: 48 * mib, nativePlateau: 32 * mib, rssTop: 96 * mib, rssPlateau: 64 * mib, rise: 6, decay: 1.5}

func (p peak) at(k int) (native, rss float64) {
	x := float64(k)
	if x < p.rise {
		return p.nativeTop * x / p.rise, p.rssTop * x / p.rise
	}
	d := math.Exp(-(x - p.rise) / p.decay)
	return p.nativePlateau + (p.nativeTop-p.nativePlateau)*d, p.rssPlateau + (p.rssTop-p.rssPlateau)*d
}

// proc is one instance's process: its counters and memory state.
type proc struct {
	model              string
	seq, sinceStart    int
	lifecycles, recs   int64
	elapsedNs          int64
	nativeAR, rssAR    float64
	nativeLvl, rssLvl  float64 // growth so far
	restartStallMs     int64   // the lag the last start left, caught up at catchUpMsPerSample
	restartNs          int64
	peak               peak
	extraNativePerLife float64 // an override of the model's rate (tests)
}

const catchUpMsPerSample = 12_000

type synth struct {
	rng *rand.Rand
	r   *schema.Rehearsal
	ps  map[int]*proc
}

func newSynth(seed uint64, from, to string, domains [][]int) *synth {
	s := &synth{rng: rand.New(rand.NewPCG(seed, 20616)), ps: map[int]*proc{}}
	s.r = &schema.Rehearsal{SchemaVersion: schema.RehearsalSchemaVersion, Tool: "rocksleak", From: from, To: to,
		Scenario: "kafka-20616", Seed: int64(seed), MaxRestarts: 2, WindowMs: phaseMs, RecordsPerSecond: recordsPerSecond,
		Policy: string(gate.DefaultPolicyYAML()), Versions: []schema.VersionChange{}}
	s.r.Provenance.GitCommit = "0123456789abcdef0123456789abcdef01234567"
	task := 0
	for d, ids := range domains {
		for _, id := range ids {
			s.r.Instances = append(s.r.Instances, schema.FleetInstance{ID: id, Domain: d, Tasks: []int{task, task + 1}})
			task += tasksPerInstance
		}
	}
	return s
}

// start (re)starts instance id on model: a new process, counters from 0.
func (s *synth) start(id int, model, phase string, atMs, stallMs int64) {
	from := ""
	if p := s.ps[id]; p != nil {
		from = p.model
	}
	s.ps[id] = &proc{model: model, restartStallMs: stallMs, restartNs: 900e6 + s.rng.Int64N(600e6), peak: defaultPeak}
	s.r.Versions = append(s.r.Versions, schema.VersionChange{AtMs: atMs, Instance: id, From: from, To: model, Phase: phase})
}

// phase runs every instance for one phase; restarted are restarted at its
// start on their new model (set by start before).
func (s *synth) phase(name string, restarted []int) int {
	idx := len(s.r.Phases)
	startMs := int64(idx) * phaseMs
	ph := schema.Phase{Name: name, StartMs: startMs, EndMs: startMs + phaseMs, ElapsedNs: 2_500_000_000 + s.rng.Int64N(5e8),
		Restarted: restarted}
	for _, fi := range s.r.Instances {
		ph.Instances = append(ph.Instances, s.run(fi.ID, startMs, slices.Contains(restarted, fi.ID) || idx == 0))
	}
	s.r.Phases = append(s.r.Phases, ph)
	return idx
}

// run produces one instance's samples, lag and summary over a phase.
func (s *synth) run(id int, startMs int64, fresh bool) schema.InstancePhase {
	p := s.ps[id]
	rt := modelRates[p.model]
	if p.extraNativePerLife != 0 {
		rt.nativePerLifecycle = p.extraNativePerLife
	}
	ip := schema.InstancePhase{Instance: id, Model: p.model}
	if fresh {
		ip.RestartNs = p.restartNs
	}
	l0, r0 := p.lifecycles, p.recs
	for k := range samplesPerPhase {
		if !(k == 0 && p.seq == 0) {
			p.lifecycles += lifecyclesPerSample
			p.recs += lifecyclesPerSample * recordsPerLifecycle
			p.nativeLvl += lifecyclesPerSample * rt.nativePerLifecycle
			p.rssLvl += lifecyclesPerSample * recordsPerLifecycle * rt.rssPerMillion / 1e6
		}
		p.nativeAR = 0.5*p.nativeAR + s.rng.NormFloat64()*16*kib
		p.rssAR = 0.5*p.rssAR + s.rng.NormFloat64()*128*kib
		pn, pr := p.peak.at(p.sinceStart)
		trigger := schema.TriggerLifecycle
		if p.seq == 0 {
			trigger = schema.TriggerStart
		}
		smp := schema.Sample{Model: p.model, Seq: p.seq, ElapsedNs: p.elapsedNs, Trigger: trigger,
			Lifecycles: p.lifecycles, Records: p.recs,
			Memory: schema.Memory{
				NativeHeap: int64(24*mib + pn + p.nativeLvl + p.nativeAR),
				RSS:        int64(96*mib + pr + p.rssLvl + p.rssAR),
				VMS:        int64(1200*mib + pr),
				FDs:        40 + int(s.rng.Int64N(3)),
				GoHeap:     int64(6*mib + s.rng.Float64()*mib),
			},
			RocksDB: schema.RocksDBMemory{MemTables: schema.Unavailable, TableReaders: schema.Unavailable,
				BlockCache: schema.Unavailable, OpenDBs: 6}}
		ip.Samples = append(ip.Samples, smp)
		p.seq++
		p.sinceStart++
		p.elapsedNs += 40e6 + s.rng.Int64N(20e6)

		behind := 200 + s.rng.Int64N(1600)
		if p.restartStallMs > 0 {
			behind = max(behind, p.restartStallMs-int64(k)*catchUpMsPerSample)
		}
		ip.Lag = append(ip.Lag, schema.LagPoint{AtMs: startMs + int64(k)*simMsPerSample, BehindMs: behind,
			Records: int64(float64(behind) / 1000 * recordsPerSecond * tasksPerInstance)})
	}
	p.restartStallMs = 0
	for _, l := range ip.Lag {
		ip.MaxLagMs = max(ip.MaxLagMs, l.BehindMs)
		ip.MaxLagRecords = max(ip.MaxLagRecords, l.Records)
	}
	// Restores the workload does (unclean closes), a few per phase; a
	// restarted process also restores its tasks' stores.
	n := int64(3)
	if fresh {
		n += tasksPerInstance
	}
	p50 := int64(38e6 + s.rng.Int64N(6e6))
	ip.Summary = schema.Summary{Model: p.model, Steps: samplesPerPhase, Lifecycles: p.lifecycles - l0, Records: p.recs - r0,
		Verified: p.recs - r0, Restore: schema.RestoreStats{Count: n, P50Ns: p50, MaxNs: p50 + int64(12e6+s.rng.Int64N(6e6)),
			Records: n * 4_000}}
	return ip
}

// gate gates phase idx and records it.
func (s *synth) gate(t testing.TB, idx int, candidates, baselines []int) *schema.GateRecord {
	t.Helper()
	g, err := Gate(gate.DefaultPolicy(), s.r, idx, candidates, baselines)
	require.NoError(t, err)
	s.r.Phases[idx].Gate = g
	return g
}

// rolloutFixture is leaky → fixed on 4 instances in 2 domains: the canary
// passes, both domains expand, the fleet ends on fixed.
func rolloutFixture(t testing.TB) *schema.Rehearsal {
	s := newSynth(1, "leaky", "fixed", [][]int{{0, 1}, {2, 3}})
	for id := range 4 {
		s.start(id, "leaky", "baseline", 0, 0)
	}
	s.phase("baseline", nil)
	s.start(0, "fixed", "canary", phaseMs, 45_000)
	c := s.phase("canary", []int{0})
	s.gate(t, c, []int{0}, []int{1, 2, 3})
	s.start(1, "fixed", "expand-domain-0", 2*phaseMs, 40_000)
	d0 := s.phase("expand-domain-0", []int{1})
	s.gate(t, d0, []int{1}, []int{2, 3})
	s.start(2, "fixed", "expand-domain-1", 3*phaseMs, 42_000)
	s.start(3, "fixed", "expand-domain-1", 3*phaseMs, 47_000)
	d1 := s.phase("expand-domain-1", []int{2, 3})
	// No instance is left on leaky: the last domain is gated against the
	// instances that already passed on fixed.
	s.gate(t, d1, []int{2, 3}, []int{0, 1})
	s.phase("final", nil)
	s.r.Status = schema.RehearsalComplete
	s.r.Decision = "complete: the canary and both failure domains passed their gates; every instance runs fixed"
	s.r.ElapsedNs = 14_200_000_000
	return s.r
}

// rollbackFixture is fixed → fixed+synthetic (a leak the baseline does not
// have): the canary fails its gate and is rolled back to fixed, and the
// rollback verifies.
func rollbackFixture(t testing.TB) *schema.Rehearsal {
	s := newSynth(2, "fixed", "fixed+synthetic", [][]int{{0, 1}, {2, 3}})
	for id := range 4 {
		s.start(id, "fixed", "baseline", 0, 0)
	}
	s.phase("baseline", nil)
	s.start(0, "fixed+synthetic", "canary", phaseMs, 45_000)
	c := s.phase("canary", []int{0})
	g := s.gate(t, c, []int{0}, []int{1, 2, 3})
	require.Equal(t, OutcomeFail, g.Outcome, g.Reason)
	s.start(0, "fixed", "rollback", 2*phaseMs, 44_000)
	s.phase("rollback", []int{0})
	s.r.Rollback = &schema.Rollback{Instances: []int{0}, Verified: true, Checks: []schema.RollbackCheck{
		{Name: "old version opens the new version's state", OK: true,
			Detail: "fixed opened instance 0's 6 stores written by fixed+synthetic: status marker clean, offsets column family read"},
		{Name: "changelog offsets preserved", OK: true,
			Detail: "tasks 0, 1: committed offsets 31360 and 31360 equal the changelog ends at the rollback"},
		{Name: "no record lost", OK: true, Detail: "62720 records sent to instance 0's tasks, 62720 processed, 0 lost"},
		{Name: "outputs equal the reference replay", OK: true,
			Detail: "tasks 0, 1: outputs of 62720 records equal a replay on fixed (sha256 5d41402abc4b2a76)"},
	}}
	s.r.Status = schema.RehearsalRolledBack
	s.r.Decision = "rolled back: the canary's gate failed (RSS and native-heap growth above their limits); " +
		"instance 0 is back on fixed and the rollback verified"
	s.r.ElapsedNs = 8_900_000_000
	return s.r
}
