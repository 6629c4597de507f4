package simulate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rocksleak/rocksleak/stats"
)

// The coverage goal of issue 11: every case's 95% interval covers the true
// slope in 0.90–0.98 of runs.
const (
	GoalCoverLow  = 0.90
	GoalCoverHigh = 0.98
)

// FrontierPair is one pair of error models that the coverage frontier
// (RunFrontier) sets against each other: a stationary AR(1) with
// coefficient Phi, and the same plus a random walk carrying Share of the
// innovation variance, whose steps are white or, when Bursty, AR(1) with the
// same Phi (stats.RegressRobust's integrated family); N samples two
// lifecycles apart, no slope.
type FrontierPair struct {
	Stationary string // the stationary model's name, e.g. "white noise"
	Phi, Share float64
	Bursty     bool
	N          int
}

// frontierInnovations is the stationary part's innovation SD (the native
// heap's, NativeSD; the frontier does not depend on the scale).
const frontierInnovations = NativeSD

// FrontierResult is RunFrontier's answer for one pair.
type FrontierResult struct {
	Pair FrontierPair
	Reps int
	// BestWalk is the largest coverage of the walk's series among the
	// thresholds that cover the stationary series at most GoalCoverHigh;
	// BestStationary the smallest coverage of the stationary series among
	// those that cover the walk's at least GoalCoverLow.
	BestWalk, BestStationary float64
	// Feasible: some threshold covers both within the goal.
	Feasible bool
	// RobustStationary and RobustWalk are stats.RegressRobust's own 95%
	// coverage on the first RobustReps series of each model (NaN when
	// RobustReps is 0).
	RobustStationary, RobustWalk float64
	RobustReps                   int
	// CalibratedStationary and CalibratedWalk are the calibrated
	// interval's (stats.RegressCalibrated, the native heap's) 95% coverage
	// of the same series.
	CalibratedStationary, CalibratedWalk float64
}

// RunFrontier measures how close an interval can come to the coverage goal
// on both models of p when it knows that one of the two is the truth: over
// reps series of each, it takes the walk model's own 95% interval
// (stats.RegressUnder, Student-t with its DF) when the log-likelihood ratio
// Λ = ℓ(walk) − ℓ(stationary) is at least c and the stationary model's
// otherwise, at every threshold c that changes a choice. Λ is the
// Neyman–Pearson statistic between the two and is invariant to the slope and
// intercept (both are profiled out), so no other way of choosing between the
// two intervals tells the models apart better. When the pair has no
// threshold that meets the goal on both, no interval that picks between
// them does: the goal's upper bound on the stationary model can then only be
// met by covering the walk, which the data cannot tell from it, below
// GoalCoverLow. It also counts stats.RegressRobust's own coverage (which
// searches its whole grid) on the first robustReps series of each model
// (at most reps; RegressRobust costs far more than the two fits), and
// stats.RegressCalibrated's (the native heap's interval) on the same series.
func RunFrontier(p FrontierPair, reps, robustReps int, seed uint64) (FrontierResult, error) {
	r := rand.New(rand.NewPCG(seed, hash(p.name())))
	L := make([]float64, p.N)
	X := mat.NewDense(p.N, 2, nil)
	for i := range L {
		L[i] = 2 * float64(i)
		X.Set(i, 0, 1)
		X.Set(i, 1, L[i])
	}
	step := frontierInnovations * math.Sqrt(p.Share/(1-p.Share))
	walkNoise := RandomWalk(step)
	if p.Bursty {
		walkNoise = BurstyWalk(p.Phi, step)
	}
	stationary := stats.ErrorModel{Phi: p.Phi}
	walkModel := stats.ErrorModel{Phi: p.Phi, RandomWalkShare: p.Share, Bursty: p.Bursty}
	var draws []frontierDraw
	var robustCover, calCover [2]int
	covers := func(f stats.ModelFit) bool {
		tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: f.DF}.Quantile(0.975)
		return math.Abs(f.Coef[1]) <= tq*f.SE[1]
	}
	robustReps = min(robustReps, reps)
	for _, walk := range []bool{false, true} {
		for rep := range reps {
			y := AR1(p.Phi, frontierInnovations)(r, p.N)
			if walk {
				for i, v := range walkNoise(r, p.N) {
					y[i] += v
				}
			}
			f0, err := stats.RegressUnder(X, y, stationary)
			if err != nil {
				return FrontierResult{}, err
			}
			f1, err := stats.RegressUnder(X, y, walkModel)
			if err != nil {
				return FrontierResult{}, err
			}
			draws = append(draws, frontierDraw{f1.LogLik - f0.LogLik, covers(f0), covers(f1), walk})
			if rep < robustReps {
				robust, cal, err := robustCovers(X, y)
				if err != nil {
					return FrontierResult{}, err
				}
				robustCover[b2i(walk)] += b2i(robust)
				calCover[b2i(walk)] += b2i(cal)
			}
		}
	}
	res := FrontierResult{Pair: p, Reps: reps, BestStationary: 1, RobustStationary: math.NaN(), RobustWalk: math.NaN(), RobustReps: robustReps,
		CalibratedStationary: math.NaN(), CalibratedWalk: math.NaN()}
	if robustReps > 0 {
		res.RobustStationary, res.RobustWalk = ratio(robustCover[0], robustReps), ratio(robustCover[1], robustReps)
		res.CalibratedStationary, res.CalibratedWalk = ratio(calCover[0], robustReps), ratio(calCover[1], robustReps)
	}
	res.sweepThresholds(draws, reps)
	return res, nil
}

// frontierDraw is one series' outcome under the pair: Λ, whether the
// stationary model's (narrow) and the walk model's (wide) slope intervals
// cover the true slope 0, and which model drew the series.
type frontierDraw struct {
	lambda                 float64
	coverNarrow, coverWide bool
	walk                   bool
}

// sweepThresholds offers res every threshold c on Λ that changes a choice
// (each model's coverage over reps series) through consider. At c = −∞
// every series takes the walk model's interval; raising c past each draw's Λ
// moves that draw to the stationary model's. It sorts draws by Λ in place.
func (res *FrontierResult) sweepThresholds(draws []frontierDraw, reps int) {
	sort.Slice(draws, func(i, j int) bool { return draws[i].lambda < draws[j].lambda })
	var cov [2]int
	for _, d := range draws {
		if d.coverWide {
			cov[b2i(d.walk)]++
		}
	}
	res.consider(ratio(cov[0], reps), ratio(cov[1], reps))
	for _, d := range draws {
		if d.coverWide {
			cov[b2i(d.walk)]--
		}
		if d.coverNarrow {
			cov[b2i(d.walk)]++
		}
		res.consider(ratio(cov[0], reps), ratio(cov[1], reps))
	}
}

// robustCovers reports whether stats.RegressRobust's and
// stats.RegressCalibrated's 95% slope intervals on (X, y) cover 0, robust
// fitted first; an error from either fit is returned as is.
func robustCovers(X *mat.Dense, y []float64) (robust, cal bool, err error) {
	reg, err := stats.RegressRobust(X, y, 0.95)
	if err != nil {
		return false, false, err
	}
	c, err := stats.RegressCalibrated(X, y, 0.95)
	if err != nil {
		return false, false, err
	}
	return reg.Low[1] <= 0 && 0 <= reg.High[1], c.Low[1] <= 0 && 0 <= c.High[1], nil
}

// consider folds in one threshold's coverage of the stationary series (s)
// and of the walk's (w).
func (res *FrontierResult) consider(s, w float64) {
	if s <= GoalCoverHigh {
		res.BestWalk = math.Max(res.BestWalk, w)
	}
	if w >= GoalCoverLow {
		res.BestStationary = math.Min(res.BestStationary, s)
	}
	if inGoal(s) && inGoal(w) {
		res.Feasible = true
	}
}

func inGoal(c float64) bool { return c >= GoalCoverLow && c <= GoalCoverHigh }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// name identifies the pair (and seeds its draws).
func (p FrontierPair) name() string {
	return fmt.Sprintf("%s vs + %s r=%g, n=%d", p.Stationary, p.WalkName(), p.Share, p.N)
}

// WalkName names the walk's kind.
func (p FrontierPair) WalkName() string {
	if p.Bursty {
		return fmt.Sprintf("bursty walk (steps AR(1) φ=%g)", p.Phi)
	}
	return "random walk"
}

// FrontierShares are the walk shares r of FrontierSuite, from a walk the
// likelihood can hardly see at n = 700 to one it sees at n = 40.
var FrontierShares = []float64{0.003, 0.01, 0.03, 0.1, 0.3}

// FrontierSuite returns the pairs of make stats-check's frontier table: the
// stationary models of the per-case table (white noise, AR(1) φ = 0.7 and
// 0.95) and the native heap's noise (AR(1) φ = NativePhi), each against
// the same plus a white-step random walk, and AR(1) φ = 0.7 against the
// same plus a bursty walk, at every n of ns and every share of
// FrontierShares.
func FrontierSuite(ns []int) []FrontierPair {
	type proto struct {
		name   string
		phi    float64
		bursty bool
	}
	protos := []proto{
		{"white noise", 0, false},
		{"AR(1) φ=0.7", 0.7, false},
		{fmt.Sprintf("AR(1) φ=%g (native heap)", NativePhi), NativePhi, false},
		{"AR(1) φ=0.95", 0.95, false},
		{"AR(1) φ=0.7", 0.7, true},
	}
	var out []FrontierPair
	for _, p := range protos {
		for _, n := range ns {
			for _, s := range FrontierShares {
				out = append(out, FrontierPair{Stationary: p.name, Phi: p.phi, Share: s, Bursty: p.bursty, N: n})
			}
		}
	}
	return out
}
