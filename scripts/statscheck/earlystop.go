package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"sync"
	"text/tabwriter"

	"github.com/rocksleak/rocksleak/analysis"
	"github.com/rocksleak/rocksleak/scenarios"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats/simulate"
)

// earlyCall is one simulated run's verdicts: the early stop's (the stopping
// look's, or the full run's when no look settled) and the full run's.
type earlyCall struct {
	early, full string
	stopShare   float64 // lifecycles at the stop over the planned ones (1 when it ran to the end)
	unguarded   string  // the unguarded rule's early call (RuleName, before issue 44)
}

// earlyRow tallies one case's runs.
type earlyRow struct {
	name                   string
	reps                   int
	full, early, unguarded map[string]int
	unguardedAgree         int
	unguardedContradict    int
	agree, contradict      int
	stoppedEarly           int
	medianStop             float64
	falseEarly, falseFull  int
}

// earlyRun simulates one run of c through the path real runs take: its
// samples as the harness receives them (a start sample, then one per
// sample point), the early stop as rocksleak run --until-verdict and
// rocksleak report --reanalyze apply it (analysis.Sequential over the
// samples one at a time, at the planned lifecycles), and the full run's
// verdict as analysis.Analyze decides it (analysis.FitSamples, then
// analysis.Decide on the lifecycle-only fits).
func earlyRun(c simulate.Case, r *rand.Rand) (earlyCall, error) {
	ni, ri := c.Inputs(r)
	samples := make([]schema.Sample, 0, len(ni.Y)+1)
	samples = append(samples, schema.Sample{Trigger: schema.TriggerStart, Memory: schema.Memory{NativeHeap: 4 << 20, RSS: 20 << 20}})
	for i := range ni.Y {
		L := int64(math.Round(ni.Lifecycles[i]))
		samples = append(samples, schema.Sample{Seq: i + 1, Trigger: schema.TriggerLifecycle, Lifecycles: L, Records: 120 * L,
			ElapsedNs: int64(i+1) * 40e6, Memory: schema.Memory{NativeHeap: int64(ni.Y[i]), RSS: int64(ri.Y[i])}})
	}
	fits, err := analysis.FitSamples(samples)
	if err != nil {
		return earlyCall{}, err
	}
	full := analysis.Decide(*fits[analysis.SignalNativeHeap].Total, *fits[analysis.SignalRSS].Total, analysis.DefaultFloors())
	call := earlyCall{full: full.Verdict.String(), early: full.Verdict.String(), unguarded: full.Verdict.String(), stopShare: 1}
	q := analysis.NewSequential(scenarios.Scenario{Lifecycles: simulate.EarlyPlanned}, analysis.DefaultFloors())
	if q.Replay(samples) {
		call.early = analysis.VerdictWord(q.StopVerdict().Leak)
		call.stopShare = float64(q.Verdict.Lifecycles) / simulate.EarlyPlanned
	}
	u := &analysis.Sequential{PlannedLifecycles: simulate.EarlyPlanned}
	if u.Replay(samples) {
		call.unguarded = analysis.VerdictWord(u.StopVerdict().Leak)
	}
	return call, nil
}

// earlyStop runs every case of simulate.EarlyStopSuite reps times (seeded)
// and tallies the early calls against the full run's.
func earlyStop(reps int, seed uint64, workers int) ([]earlyRow, error) {
	var rows []earlyRow
	for _, c := range simulate.EarlyStopSuite() {
		calls := make([]earlyCall, reps)
		errs := make([]error, reps)
		var wg sync.WaitGroup
		next := make(chan int)
		for range max(1, workers) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					r := rand.New(rand.NewPCG(seed, uint64(i)+hashName(c.Name)))
					calls[i], errs[i] = earlyRun(c, r)
				}
			}()
		}
		for i := range reps {
			next <- i
		}
		close(next)
		wg.Wait()
		row := earlyRow{name: c.Name, reps: reps, full: map[string]int{}, early: map[string]int{}, unguarded: map[string]int{}}
		var stops []float64
		for i, k := range calls {
			if errs[i] != nil {
				return nil, fmt.Errorf("%s: %w", c.Name, errs[i])
			}
			row.full[k.full]++
			row.early[k.early]++
			row.unguarded[k.unguarded]++
			if k.early == k.full {
				row.agree++
			}
			if k.unguarded == k.full {
				row.unguardedAgree++
			}
			if contradicts(k.early, k.full) {
				row.contradict++
			}
			if contradicts(k.unguarded, k.full) {
				row.unguardedContradict++
			}
			if k.stopShare < 1 {
				row.stoppedEarly++
			}
			if isFalseCall(c, k.early) {
				row.falseEarly++
			}
			if isFalseCall(c, k.full) {
				row.falseFull++
			}
			stops = append(stops, k.stopShare)
		}
		sort.Float64s(stops)
		row.medianStop = stops[len(stops)/2]
		rows = append(rows, row)
	}
	return rows, nil
}

func contradicts(a, b string) bool {
	return (a == analysis.WordLeak && b == analysis.WordNoLeak) || (a == analysis.WordNoLeak && b == analysis.WordLeak)
}

func isFalseCall(c simulate.Case, word string) bool {
	for _, f := range c.False {
		if f.String() == word {
			return true
		}
	}
	return false
}

func hashName(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// printEarlyStop prints the early-stop table: per case, the full run's
// calls, the early stop's, how often they agree and contradict.
func printEarlyStop(reps int, seed uint64, workers int) error {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rows, err := earlyStop(reps, seed, workers)
	if err != nil {
		return err
	}
	fmt.Printf("\nEarly stop against the full run (rocksleak run --until-verdict's looks, analysis.NewSequential's guarded rule, and the unguarded rule of\n")
	fmt.Printf("results before issue 44, against analysis.Decide on the whole run; stopped early, median stop and false early are the guarded rule's),\n")
	fmt.Printf("%d planned lifecycles, a sample every %.1f lifecycles, %d seeded runs per case (seed %d). Calls: leak / no leak / inconclusive.\n",
		simulate.EarlyPlanned, simulate.EarlyLifecyclesPerSample, reps, seed)
	fmt.Println("Goal: the early call agrees with the full run's in ≥ 98% of runs per case, and never contradicts it (leak against no leak).")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "case\tfull run\tunguarded early\tagree\tcontradict\t|\tguarded early\tagree\tcontradict\tstopped early\tmedian stop\tfalse early\tfalse full\t")
	calls := func(m map[string]int) string {
		return fmt.Sprintf("%d / %d / %d", m[analysis.WordLeak], m[analysis.WordNoLeak], m[analysis.WordInconclusive])
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t|\t%s\t%s\t%d\t%d\t%.0f%%\t%d\t%d\t\n", r.name, calls(r.full),
			calls(r.unguarded), f3(frac(r.unguardedAgree, r.reps)), r.unguardedContradict,
			calls(r.early), f3(frac(r.agree, r.reps)), r.contradict, r.stoppedEarly, 100*r.medianStop, r.falseEarly, r.falseFull)
	}
	return w.Flush()
}
