package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

func versionEst(v, lo, hi float64) stats.Estimate {
	return stats.Estimate{Value: v, Low: lo, High: hi, Valid: true}
}

func laterHalf(v, lo, hi float64, flags ...stats.Flag) *LaterHalf {
	return &LaterHalf{From: 402, Fit: stats.Fit{PerLifecycle: versionEst(v, lo, hi), Flags: flags}}
}

func vsRef(verdict string, d stats.Estimate) *schema.Controlled {
	return &schema.Controlled{Model: "kafka-x", Control: "kafka-4.3.1", Differs: "reference version",
		Signal: SignalNativeHeap, Difference: d, Confidence: 0.99, Verdict: verdict}
}

// TestJudgeVersion: the versions table's row verdict. Figures are those of
// docs/versions.md's 600-lifecycle table (2026-12-03), where 10 of 13 rows
// were inconclusive because RSS reached its 12 KiB floor. Positive controls:
// 4.3.0 (the offsets options) is a leak, and so is a version whose RSS
// cannot settle. Negative controls: a 4.0-4.2 row and the reference are no
// leak though RSS reaches its floor; a row whose RSS lies above its floor,
// whose ledger holds offsets options, whose native heap reaches its floor,
// or whose difference from the reference is not inside ± the floor, is not.
// A native heap whose fit is flagged settles only on an unflagged later half
// on the same side of its floor (shown failing with the flags ignored, as
// before: the later-half-above, flagged-later-half, random-walk and slowing-
// leak cases were then settled).
func TestJudgeVersion(t *testing.T) {
	floors := schema.VerdictFloors{NativeHeap: 2048, RSS: 12288}
	cases := []struct {
		name        string
		e           VersionEvidence
		want        string
		unsettled   bool
		evidenceHas string
	}{
		{"4.3.0 leaks (native, paired vs 4.3.1, ledger)", VersionEvidence{Native: versionEst(30208, 29798, 30618),
			RSS: versionEst(39526, 31642, 47411), VsReference: vsRef("leak", versionEst(29286, 28672, 30003)),
			OffsetsOptionsLive: 636}, WordLeak, false, "636 offsets options live"},
		{"a leak whose RSS cannot settle is still a leak", VersionEvidence{Native: versionEst(30208, 29798, 30618),
			RSS: versionEst(9000, -1000, 20000), VsReference: vsRef("leak", versionEst(29286, 28672, 30003)),
			OffsetsOptionsLive: 636}, WordLeak, true, "cannot settle"},
		{"4.0.1: native below its floor, RSS reaching it", VersionEvidence{Native: versionEst(817, 513, 1116),
			RSS: versionEst(11469, 4055, 18842), VsReference: vsRef("no leak", versionEst(45, -500, 600)),
			NoOffsetsCF: true}, WordNoLeak, true, "no offsets column family"},
		{"the reference itself rests on its native heap and ledger", VersionEvidence{Native: versionEst(772, 363, 1178),
			RSS: versionEst(6461, 1761, 11162)}, WordNoLeak, false, "the reference version"},
		{"native heap reaching its floor: inconclusive", VersionEvidence{Native: versionEst(691, -708, 2089),
			RSS: versionEst(11981, 6676, 17203), VsReference: vsRef("no leak", versionEst(-80, -600, 500))},
			WordInconclusive, true, "reaches its floor 2"},
		{"RSS above its floor vetoes no leak", VersionEvidence{Native: versionEst(800, 500, 1100),
			RSS: versionEst(30000, 20000, 40000), VsReference: vsRef("no leak", versionEst(0, -500, 500)),
			NoOffsetsCF: true}, WordInconclusive, false, "above its floor 12"},
		{"offsets options live veto no leak", VersionEvidence{Native: versionEst(800, 500, 1100),
			RSS: versionEst(3000, 1000, 5000), VsReference: vsRef("no leak", versionEst(0, -500, 500)),
			OffsetsOptionsLive: 600}, WordInconclusive, false, "600 offsets options live"},
		{"not told from the reference within ± the floor", VersionEvidence{Native: versionEst(800, 500, 1100),
			RSS: versionEst(3000, 1000, 5000), VsReference: vsRef("inconclusive", versionEst(100, -2500, 2700)),
			NoOffsetsCF: true}, WordInconclusive, false, "inconclusive"},
		{"native above its floor but the same as the reference: inconclusive", VersionEvidence{
			Native: versionEst(5000, 4000, 6000), RSS: versionEst(9000, 1000, 17000),
			VsReference: vsRef("no leak", versionEst(0, -500, 500))}, WordInconclusive, true, "above its floor 2"},
		{"falling RSS vetoes a leak", VersionEvidence{Native: versionEst(30208, 29798, 30618),
			RSS: versionEst(-9000, -15000, -3000), VsReference: vsRef("leak", versionEst(29286, 28672, 30003))},
			WordInconclusive, false, "below its floor"},
		// The native heap's own flags (the reference row has no controlled
		// verdict to catch them): settled by an unflagged later half on the
		// same side of the floor, else not.
		{"native slope-not-constant, later half below: no leak", VersionEvidence{Native: versionEst(834, 649, 1020),
			NativeFlags: []stats.Flag{stats.FlagSlopeNotConstant, stats.FlagSlows}, NativeLater: laterHalf(642, 611, 672),
			RSS: versionEst(5000, 2000, 8000)}, WordNoLeak, false, "later half (lifecycle 402 on) +642 B [+611 B, +672 B] below it too"},
		{"native slope-not-constant, later half above the floor: not no leak", VersionEvidence{Native: versionEst(1100, 700, 1500),
			NativeFlags: []stats.Flag{stats.FlagSlopeNotConstant}, NativeLater: laterHalf(3800, 3000, 4600),
			RSS: versionEst(5000, 2000, 8000)}, WordInconclusive, false, "not settled"},
		{"native slope-not-constant, later half flagged itself", VersionEvidence{Native: versionEst(834, 649, 1020),
			NativeFlags: []stats.Flag{stats.FlagSlopeNotConstant}, NativeLater: laterHalf(642, 611, 672, stats.FlagWarmupAtLimit),
			RSS: versionEst(5000, 2000, 8000)}, WordInconclusive, false, "is flagged warmup-at-limit"},
		{"native random-walk: no later half settles it", VersionEvidence{Native: versionEst(834, 649, 1020),
			NativeFlags: []stats.Flag{stats.FlagRandomWalk}, NativeLater: laterHalf(642, 611, 672),
			RSS: versionEst(5000, 2000, 8000)}, WordInconclusive, false, "flagged random-walk"},
		{"a leak whose growth slows is not a leak", VersionEvidence{Native: versionEst(30208, 29798, 30618),
			NativeFlags: []stats.Flag{stats.FlagSlows}, NativeLater: laterHalf(1500, 900, 2100, stats.FlagSlows),
			RSS: versionEst(39526, 31642, 47411), VsReference: vsRef("leak", versionEst(29286, 28672, 30003)),
			OffsetsOptionsLive: 636}, WordInconclusive, false, "growth-slows"},
		{"a leak whose growth slows but whose later half holds its rate", VersionEvidence{Native: versionEst(30208, 29798, 30618),
			NativeFlags: []stats.Flag{stats.FlagSlows}, NativeLater: laterHalf(29500, 28700, 30300),
			RSS: versionEst(39526, 31642, 47411), VsReference: vsRef("leak", versionEst(29286, 28672, 30003)),
			OffsetsOptionsLive: 636}, WordLeak, false, "above it too"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := JudgeVersion(c.e, floors)
			assert.Equal(t, c.want, j.Word, j.String())
			assert.Equal(t, c.unsettled, j.RSSUnsettled, j.String())
			assert.Contains(t, j.String(), c.evidenceHas)
		})
	}
}

// TestControlledAgainstUsesTheFloorAsMargin: against the reference, a
// difference inside ± the native floor is "no leak" (no difference that
// matters), one above it a leak, one straddling it inconclusive; without
// samples it falls back to the difference of the two fits.
func TestControlledAgainstUsesTheFloorAsMargin(t *testing.T) {
	fit := func(v, se float64) schema.SignalFit {
		f := stats.Fit{PerLifecycle: stats.Estimate{Value: v, Low: v - 2*se, High: v + 2*se, SE: se, DF: 1000,
			Valid: true}, Confidence: 0.95}
		return schema.SignalFit{Fit: f, Total: &schema.SignalFit{Fit: f}}
	}
	for _, c := range []struct {
		name     string
		model    float64
		want     string
		viaPairs bool
	}{
		{"same as the reference", 800, "no leak", false},
		{"offsets options on top", 30000, "leak", false},
		{"at the floor", 2800, "inconclusive", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &schema.Result{Floors: schema.VerdictFloors{NativeHeap: 2048, RSS: 12288},
				Runs: map[string]*schema.Run{
					"kafka-x":     {Summary: schema.Summary{Lifecycles: 600}, Fits: map[string]schema.SignalFit{SignalNativeHeap: fit(c.model, 150)}},
					"kafka-4.3.1": {Summary: schema.Summary{Lifecycles: 600}, Fits: map[string]schema.SignalFit{SignalNativeHeap: fit(780, 150)}},
				}}
			got := ControlledAgainst(r, nil, "kafka-x", "kafka-4.3.1")
			if assert.NotNil(t, got) {
				assert.Equal(t, c.want, got.Verdict, got.Reason)
				assert.Contains(t, got.Reason, "difference of the two fits")
			}
		})
	}
	assert.Nil(t, ControlledAgainst(&schema.Result{Runs: map[string]*schema.Run{}}, nil, "a", "b"))
}

// versionsRun reads testdata/versions-800.samples.csv.gz (rocksleak versions
// --versions 4.2.2,4.3.0,4.3.1 at 800 lifecycles, 2026-12-06, the shared
// machine) and fits each model as a run would: the result the versions
// table is computed from.
func versionsRun(t *testing.T) (*schema.Result, map[string][]schema.Sample) {
	samples, err := schema.ReadSamplesCSV("testdata/versions-800.samples.csv.gz")
	require.NoError(t, err)
	r := &schema.Result{Floors: DefaultFloors(), Runs: map[string]*schema.Run{}}
	for _, m := range []string{"kafka-4.2.2", "kafka-4.3.0", "kafka-4.3.1"} {
		ss := samples[m]
		require.NotEmpty(t, ss, m)
		fits, err := FitSamples(ss)
		require.NoError(t, err)
		last := ss[len(ss)-1]
		r.Models = append(r.Models, m)
		r.Runs[m] = &schema.Run{Summary: schema.Summary{Lifecycles: last.Lifecycles, FailedCloses: last.FailedCloses}, Fits: fits}
	}
	return r, samples
}

// TestControlledAgainstPairsOnlyTheSameSchedule, on a real run: 4.3.0 and
// 4.3.1 ran the same schedule (the same lifecycles and failed closes), so
// 4.3.0 is judged on the paired series, a leak beyond the floor (positive
// control); 4.2.2's closes write no status, so none fails and its samples
// fall at other lifecycle counts: it is judged on the difference of the
// fits, within ± the floor of 4.3.1 (negative control). Shown failing with
// pairing regardless of schedule: 4.2.2 − 4.3.1 was −1.48 KiB [−25.8 KiB,
// 23.0 KiB] (99%), inconclusive.
func TestControlledAgainstPairsOnlyTheSameSchedule(t *testing.T) {
	r, samples := versionsRun(t)
	leak := ControlledAgainst(r, samples, "kafka-4.3.0", "kafka-4.3.1")
	require.NotNil(t, leak)
	assert.Equal(t, "leak", leak.Verdict, leak.Reason)
	assert.Contains(t, leak.Reason, pairedMethod)
	assert.InDelta(t, 28.8*1024, leak.Difference.Value, 1024, "one offsets-CF options object per lifecycle")

	same := ControlledAgainst(r, samples, "kafka-4.2.2", "kafka-4.3.1")
	require.NotNil(t, same)
	assert.Equal(t, "no leak", same.Verdict, same.Reason)
	assert.Contains(t, same.Reason, "not paired: the two ran different schedules")
	assert.Less(t, same.Difference.High-same.Difference.Low, 2*r.Floors.NativeHeap)
}

// synthVersion is n samples of one version's run at lifecycle counts
// start, start+2, ...; its native heap is 200 MiB + f(lifecycles) + AR(1)
// noise (φ 0.3, sd bytes), seeded; with failing, one close in 20 fails
// (4.3's schedule: a 4.0-4.2 jar's closes write no status, so none fails).
func synthVersion(name string, seed uint64, start int64, failing bool, f func(L float64) float64, sd float64) []schema.Sample {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]schema.Sample, 360)
	e := 0.0
	for i := range out {
		e = 0.3*e + sd*r.NormFloat64()
		L := start + 2*int64(i)
		var fc int64
		if failing {
			fc = L / 20
		}
		out[i] = schema.Sample{Model: name, Seq: i, Trigger: schema.TriggerLifecycle, Lifecycles: L, FailedCloses: fc,
			Memory: schema.Memory{NativeHeap: int64(200<<20 + f(float64(L)) + e), RSS: 300 << 20}}
	}
	return out
}

// TestControlledAgainstFallsBack: where a flag saying the whole run's rate is
// not its rate at the end withholds the controlled verdict against the
// reference, the verdict rests on the later halves (or, paired, the later
// half of the paired series), only when that is not flagged itself and the
// whole-run interval says the same. Positive controls: a version whose growth
// slows below the floor (as 4.0-4.2's did at 800 lifecycles: slope-not-
// constant) is no leak; a paired 4.3.0-like leak withheld by warmup-at-limit
// is a leak. Negative controls: a leak starting late (the whole-run
// difference inside ± the floor, its later half above it) is not settled
// either way; a fallback flagged itself leaves the verdict withheld.
func TestControlledAgainstFallsBack(t *testing.T) {
	ref := func(L float64) float64 { return 700 * L }
	slowing := func(a, b float64) func(float64) float64 { return func(L float64) float64 { return a*L - b*L*L/720 } }
	lateLeak := func(L float64) float64 { return 700*L + 3000*math.Max(0, L-480) }
	leak430 := func(A, tau float64) func(float64) float64 {
		return func(L float64) float64 { return 700*L + 29.5*1024*L + A*(1-math.Exp(-L/tau)) }
	}
	for _, c := range []struct {
		name       string
		model      []schema.Sample
		paired     bool
		want       string
		withheld   bool
		fallbackIs string
		flag       stats.Flag // the whole-run fit's (unpaired) or the paired series' (paired) flag
	}{
		{"slowing below the floor: no leak on the later halves", synthVersion("kafka-x", 1, 2, false, slowing(1500, 600), 2000),
			false, "no leak", false, "on the difference of the two runs' later halves", stats.FlagSlopeNotConstant},
		{"a leak starting late is not settled", synthVersion("kafka-x", 1, 2, false, lateLeak, 20000),
			false, "inconclusive", true, "where the whole run's interval says no leak", stats.FlagSlopeNotConstant},
		{"a later half flagged itself leaves it withheld", synthVersion("kafka-x", 1, 2, false, slowing(1300, 550), 2000),
			false, "inconclusive", true, "withheld too (model: slope-not-constant)", stats.FlagSlopeNotConstant},
		{"a paired 4.3.0-like leak at warm-up's limit: leak on the paired later half",
			synthVersion("kafka-x", 1, 2, true, leak430(1<<20, 300), 20000), true, "leak", false, "on the later half of the paired series", stats.FlagWarmupAtLimit},
		{"a paired later half flagged itself leaves it withheld",
			synthVersion("kafka-x", 1, 2, true, leak430(3<<20, 600), 20000), true, "inconclusive", true, "withheld too (paired difference: warmup-at-limit)", stats.FlagWarmupAtLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			control := synthVersion("kafka-4.3.1", 2, 3, true, ref, 2000)
			if c.paired {
				control = synthVersion("kafka-4.3.1", 2, 2, true, ref, 20000)
			}
			samples := map[string][]schema.Sample{"kafka-x": c.model, "kafka-4.3.1": control}
			r := &schema.Result{Floors: DefaultFloors(), Runs: map[string]*schema.Run{}}
			for m, ss := range samples {
				fits, err := fitSamples(ss, []string{SignalNativeHeap})
				require.NoError(t, err)
				last := ss[len(ss)-1]
				r.Runs[m] = &schema.Run{Summary: schema.Summary{Lifecycles: last.Lifecycles, FailedCloses: last.FailedCloses}, Fits: fits}
			}
			require.Equal(t, c.paired, SameSchedule(r.Runs["kafka-x"], r.Runs["kafka-4.3.1"]))
			got := ControlledAgainst(r, samples, "kafka-x", "kafka-4.3.1")
			require.NotNil(t, got)
			if c.paired {
				require.Contains(t, got.Fallback, "withheld (paired difference: "+string(c.flag)+")")
			} else {
				require.True(t, r.Runs["kafka-x"].Fits[SignalNativeHeap].Total.HasFlag(c.flag))
			}
			assert.Equal(t, c.want, got.Verdict, got.Reason)
			assert.Equal(t, c.withheld, got.Withheld != "", got.Reason)
			assert.Contains(t, got.Fallback, c.fallbackIs, got.Reason)
			assert.Contains(t, got.Reason, got.Fallback)
			j := JudgeVersion(VersionEvidence{Native: r.Runs["kafka-x"].Fits[SignalNativeHeap].Total.PerLifecycle,
				RSS: versionEst(3000, 1000, 5000), VsReference: got, NoOffsetsCF: !c.paired, OffsetsOptionsLive: 800}, r.Floors)
			assert.Contains(t, j.String(), c.fallbackIs, "the row says what settled it, or why nothing did")
			if c.want == "no leak" {
				assert.Equal(t, WordNoLeak, j.Word, j.String())
			}
			if c.want == "leak" {
				assert.Equal(t, WordLeak, j.Word, j.String())
			}
			if c.withheld {
				assert.Equal(t, WordInconclusive, j.Word, j.String())
			}
		})
	}
}
