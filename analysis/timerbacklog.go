package analysis

import (
	"sort"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// timerTask is one of the periodic tasks RocksDB registers with its
// process-wide timer at every DB open: offset is its place among the open's
// registrations (each draws the next value of one process-wide counter),
// periodSec its period.
type timerTask struct {
	offset    int
	periodSec float64
}

// timerTasks are the tasks a DB open registers with RocksDB's defaults
// (stats_dump_period_sec = stats_persist_period_sec = 600, which Kafka
// Streams leaves alone), in registration order: dump_st, pst_st,
// flush_info_log (10 s). RocksDB 7.8, db/periodic_task_scheduler.cc
// (PeriodicTaskScheduler::Register; DBImpl::StartPeriodicTaskScheduler).
// RocksDB 10.1.3, the rocksdbjni Kafka 4.3's pom names (the JVM engine's),
// registers the same tasks with the same defaults and the same initial
// delays, and its util/timer.h differs from 7.8.3's in formatting only
// (git diff v7.8.3 v10.1.3 of both files), so the same rules hold there.
var timerTasks = []timerTask{{0, 600}, {1, 600}, {2, 10}}

// TimerBacklog is, for every non-timer sample of one run (keyed by its
// lifecycle count, the first sample at each count), the number of RocksDB
// timer entries the run's DB opens still hold at the sample's time, by
// RocksDB 7.8's rules: each open registers the tasks of timerTasks with the
// process-wide timer, the i-th registration of the process at an initial
// delay of (i mod period) seconds (db/periodic_task_scheduler.cc); closing
// the DB cancels them, and the timer frees a cancelled entry only when it
// comes due (util/timer.h, Timer::Run), up to 600 s later. The count is
// therefore wall-clock driven: two runs of the same schedule at different
// paces hold different numbers at the same lifecycle count, and their native
// heaps differ by about 200 B per entry (docs/findings.md, 2026-12-03 night),
// a difference that wanders over the run and is not a leak.
//
// Reconstruction, stated as assumed: one DB open per lifecycle, at the time of
// the sample that counts it (between two samples the lifecycles are spread
// evenly over the elapsed time), after the OpenDBs of the run's first sample
// opened at time 0; an entry lives until its first due time (the DB's life,
// a step, is taken as short against the delays). It is a regressor for the
// paired verdict (PairedTimerInput), fitted with a free coefficient, not a
// correction subtracted at a fixed size.
func TimerBacklog(samples []schema.Sample) map[int64]float64 {
	type point struct {
		lc int64
		t  float64
	}
	var pts []point
	seen := map[int64]bool{}
	initial := -1
	for _, s := range samples {
		if initial < 0 {
			initial = s.RocksDB.OpenDBs
		}
		if s.Trigger == schema.TriggerTimer || seen[s.Lifecycles] {
			continue
		}
		seen[s.Lifecycles] = true
		pts = append(pts, point{s.Lifecycles, float64(s.ElapsedNs) / 1e9})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].lc < pts[j].lc })
	initial = max(initial, 0)
	// opens[j] is the time of the process's j-th DB open.
	opens := make([]float64, initial)
	var prevLC int64
	var prevT float64
	for _, p := range pts {
		if p.lc > prevLC {
			span := float64(p.lc - prevLC)
			for i := prevLC + 1; i <= p.lc; i++ {
				opens = append(opens, prevT+(p.t-prevT)*float64(i-prevLC)/span)
			}
		}
		prevLC, prevT = max(prevLC, p.lc), p.t
	}
	out := make(map[int64]float64, len(pts))
	maxPeriod := 0.0
	for _, k := range timerTasks {
		maxPeriod = max(maxPeriod, k.periodSec)
	}
	lo := 0
	for _, p := range pts {
		// Opens up to this sample's lifecycle count, those within the longest period.
		hi := min(initial+int(p.lc), len(opens))
		for lo < hi && opens[lo] <= p.t-maxPeriod {
			lo++
		}
		var n float64
		for j := lo; j < hi; j++ {
			for _, k := range timerTasks {
				reg := len(timerTasks)*j + k.offset
				delay := float64(reg % int(k.periodSec))
				if opens[j]+delay > p.t {
					n++
				}
			}
		}
		out[p.lc] = n
	}
	return out
}

// PairedTimerInput is PairedInput with, per sample of the series, the
// difference of the two runs' TimerBacklog at that lifecycle count (model −
// control): the regressor stats.ComparePairedCovariate takes.
func PairedTimerInput(model, control []schema.Sample, sig string) (stats.Input, []float64, bool) {
	in, ok := PairedInput(model, control, sig)
	if !ok {
		return in, nil, false
	}
	bm, bc := TimerBacklog(model), TimerBacklog(control)
	cov := make([]float64, len(in.Y))
	for i, l := range in.Lifecycles {
		cov[i] = bm[int64(l)] - bc[int64(l)]
	}
	return in, cov, true
}
