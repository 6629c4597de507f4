package stats

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// detectWarmup implements step 2 of FitSignal. The tail fit takes the
// counters among L, F and RR (restored records) that vary in the tail.
// atLimit reports a kept cut whose warm-up may not be over: the cut reached
// its limit (warmupAtLimit), or MSER-5's proposal did (its criterion still
// falling at the largest cut it may make) and the trim left the cut within
// a fifth of the limit. The trim moves a cut back to the last batch
// deviating by 4 sd from the tail fit; on growth still levelling off at the
// end of the run it stops a batch or more short of the limit (issue 29:
// 190–215 of 225 samples on a plateau with τ a third of a 450-sample run),
// so the limit alone rarely flagged it.
func detectWarmup(y, L, F, RR []float64, maxFrac float64) (cut int, reason string, atLimit bool) {
	n := len(y)
	if n < 20 {
		return 0, fmt.Sprintf("no warm-up detection: %d samples are too few", n), false
	}
	h := n / 2
	resid, cols := tailFitResiduals(y, L, F, RR, h)
	proposed := MSER(resid, 5, maxFrac)
	if proposed == 0 {
		return 0, "no warm-up detected", false
	}
	// Residuals at rounding level (an exact line) have nothing to cut.
	var scale float64
	my := mean(y)
	for _, v := range y {
		scale = math.Max(scale, math.Abs(v-my))
	}
	cut = trimCut(resid, proposed, 5, warmupZ, resid[h:], 1e-9*scale)
	if cut == 0 {
		return 0, fmt.Sprintf("no warm-up detected (MSER-5 proposed %d of %d samples, but no batch before that deviates from the tail fit by more than %.0f sd)", proposed, n, warmupZ), false
	}
	limit := maxFrac * float64(n)
	atLimit = warmupAtLimit(cut, n, maxFrac) || (proposed >= msermax(n, 5, maxFrac) && float64(cut) >= 0.8*limit)
	// The offset test measures the departure against the error model of the
	// samples after the cut; a cut at its limit may leave warm-up in them,
	// which that model would read as a random walk, so the last half's is
	// taken instead.
	model := cut
	if atLimit {
		model = h
	}
	p, ok := warmupSignificance(y, cols, cut, model)
	if ok && p > warmupAlpha {
		return 0, fmt.Sprintf("no warm-up detected (MSER-5 proposed %d of %d samples, but the first %d do not differ significantly from the line through the rest: %s)", proposed, n, cut, formatP(p)), false
	}
	var notes []string
	if cut < proposed {
		notes = append(notes, fmt.Sprintf("proposed %d, trimmed to the last batch deviating by more than %.0f sd", proposed, warmupZ))
	}
	if ok {
		notes = append(notes, "the cut samples differ from the line through the rest, "+formatP(p))
	}
	reason = fmt.Sprintf("MSER-5 on residuals of the tail fit: cut %d of %d samples", cut, n)
	if len(notes) > 0 {
		reason += " (" + strings.Join(notes, "; ") + ")"
	}
	return cut, reason, atLimit
}

// tailFitResiduals returns y's residuals from the tail fit (step 2 of
// FitSignal): an OLS of y[h:] on the counters among L, F and RR that vary
// in the tail (cols, in that order), those regressors centred on their tail
// means, extended over the whole run. With no such counter, or when that
// fit fails, the residuals are from the tail's mean of y.
func tailFitResiduals(y, L, F, RR []float64, h int) (resid []float64, cols [][]float64) {
	n := len(y)
	// Fit the tail with regressors centred on their tail means.
	cols = [][]float64{}
	for _, c := range [][]float64{L, F, RR} {
		if varies(c[h:]) {
			cols = append(cols, c)
		}
	}
	resid = make([]float64, n)
	fitted := false
	if len(cols) > 0 {
		tail := make([][]float64, len(cols))
		for j, c := range cols {
			tail[j] = c[h:]
		}
		if o, err := OLS(design(tail...), y[h:]); err == nil {
			means := make([]float64, len(cols))
			for j, c := range tail {
				means[j] = mean(c)
			}
			for i := range y {
				p := o.Coef[0]
				for j, c := range cols {
					p += o.Coef[j+1] * (c[i] - means[j])
				}
				resid[i] = y[i] - p
			}
			fitted = true
		}
	}
	if !fitted {
		m := mean(y[h:])
		for i := range y {
			resid[i] = y[i] - m
		}
	}
	return resid, cols
}

// warmupAtLimit reports whether a warm-up cut of cut samples of n reached
// its limit, maxFrac·n (within one MSER batch): warm-up may not be over.
func warmupAtLimit(cut, n int, maxFrac float64) bool {
	return cut > 0 && cut+5 >= int(maxFrac*float64(n))
}

// msermax is the largest cut MSER(y, batch, maxFrac) can return for len(y) = n.
func msermax(n, batch int, maxFrac float64) int {
	m := n / batch
	return batch * max(0, min(int(math.Floor(maxFrac*float64(n)/float64(batch))), m/2, m-2))
}

// warmupAlpha is the significance level at which a proposed warm-up must
// differ from the rest of the series to be cut.
const warmupAlpha = 0.001

// warmupSignificance tests whether samples [0, cut) depart from the line
// through the rest, combining two tests (Bonferroni); ok is false if they
// could not be run. model is where the stretch whose error model the
// offset test uses begins (cut, or the last half when the cut is at its
// limit; see detectWarmup).
//
//   - Shape: Y ~ 1 + cols is fitted by OLS to samples [cut, n); its
//     residuals give an AR(1) noise model (ρ, σ²). The deviations Dₜ of the
//     first cut samples from that line, prewhitened (eₜ = Dₜ − ρDₜ₋₁,
//     e₀ = D₀√(1−ρ²)), are independent N(0, σ²) without warm-up. After
//     removing the part a line in the counters explains (the extrapolated
//     line's own error is such a line), SSR/σ² ~ χ²(cut − k). This catches
//     a curved departure, e.g. a transient peak.
//   - Offset: Y ~ 1 + cols + P + P·(L − L_cut), P = 1[t < cut], fitted on
//     all samples by GLS under the error model RegressRobust's likelihood
//     prefers for samples [model, n) (its grid, both families, the
//     maximum), and the F test that the level and slope shifts are zero
//     (σ̂² from the fit, M − k − 2 df). This catches a small ramp or
//     offset and accounts for the uncertainty of the line it is measured
//     from. It was a Wald test with a Newey–West covariance, which cannot
//     represent a random walk: on a random walk plus noise (make
//     stats-check's case) it confirmed MSER's cut in 0.26–0.57 of series
//     against the error model's 0.03–0.12, a stretch chosen for looking
//     different then cut from the fit (TestFitSignalWarmupAgainstWander).
//     The error model comes from the samples after the cut, not from the
//     whole series, whose warm-up it reads as a random walk, and the test
//     uses that model's own covariance, not RegressRobust's largest over
//     its likelihood region. On a 1 MiB warm-up (τ = 150) under AR(1)
//     noise at n = 700 the test confirmed 1.00 of cuts; with the model of
//     the whole series 0.80, with the largest covariance 0.55 (scratch
//     measurements, 200 series each).
func warmupSignificance(y []float64, cols [][]float64, cut, model int) (p float64, ok bool) {
	n := len(y)
	if cut < 2 || n-cut < 10 || len(cols) == 0 {
		return 0, false
	}
	p1, ok1 := warmupShape(y, cols, cut)
	p2, ok2 := warmupOffset(y, cols, cut, model)
	switch {
	case ok1 && ok2:
		return math.Min(1, 2*math.Min(p1, p2)), true
	case ok1:
		return p1, true
	case ok2:
		return p2, true
	}
	return 0, false
}

func warmupShape(y []float64, cols [][]float64, cut int) (float64, bool) {
	n := len(y)
	rest := make([][]float64, len(cols))
	means := make([]float64, len(cols))
	for j, c := range cols {
		rest[j] = c[cut:]
		means[j] = mean(rest[j])
	}
	o, err := OLS(design(rest...), y[cut:])
	if err != nil {
		return 0, false
	}
	dev := make([]float64, n) // y − line through [cut, n)
	for i := range dev {
		p := o.Coef[0]
		for j, c := range cols {
			p += o.Coef[j+1] * (c[i] - means[j])
		}
		dev[i] = y[i] - p
	}
	u := dev[cut:]
	rho := clip(lag1(u), -maxAR1, maxAR1)
	var s2 float64
	for t := 1; t < len(u); t++ {
		e := u[t] - rho*u[t-1]
		s2 += e * e
	}
	s2 /= float64(len(u) - 2 - len(cols))
	if !(s2 > 0) {
		return 0, false
	}
	// Prewhiten the deviations and the regressors of the first cut samples
	// (Prais–Winsten), and remove what a line in the counters explains:
	// the extrapolated line's own error is linear in them, and a linear
	// warm-up is the offset test's job.
	w0 := math.Sqrt(1 - rho*rho)
	e := make([]float64, cut)
	Z := make([][]float64, 0, len(cols))
	for _, c := range cols {
		if varies(c[:cut]) {
			z := make([]float64, cut)
			z[0] = w0 * c[0]
			for t := 1; t < cut; t++ {
				z[t] = c[t] - rho*c[t-1]
			}
			Z = append(Z, z)
		}
	}
	e[0] = w0 * dev[0]
	for t := 1; t < cut; t++ {
		e[t] = dev[t] - rho*dev[t-1]
	}
	// Intercept column after prewhitening: w0, then 1 − ρ.
	X := mat.NewDense(cut, 1+len(Z), nil)
	X.Set(0, 0, w0)
	for t := 1; t < cut; t++ {
		X.Set(t, 0, 1-rho)
	}
	for j, z := range Z {
		X.SetCol(j+1, z)
	}
	_, kz := X.Dims()
	if cut <= kz+1 {
		return 0, false
	}
	fit, err := OLS(X, e)
	if err != nil {
		return 0, false
	}
	return distuv.ChiSquared{K: float64(cut - kz)}.Survival(fit.SSR / s2), true
}

func warmupOffset(y []float64, cols [][]float64, cut, model int) (float64, bool) {
	n := len(y)
	L := cols[0]
	level := make([]float64, n)
	slope := make([]float64, n)
	for i := 0; i < cut; i++ {
		level[i] = 1
		slope[i] = L[i] - L[cut]
	}
	extra := [][]float64{level}
	if varies(slope[:cut]) {
		extra = append(extra, slope)
	}
	// Differences of y, cols and the shifts; the error model is that of the
	// series from model on (differences [model, n−1) are those of the levels
	// [model, n)), and GLS at it is fitted on all samples.
	dy := differences(y)
	z := make([][]float64, 0, len(cols)+len(extra))
	for _, c := range append(append([][]float64{}, cols...), extra...) {
		z = append(z, differences(c))
	}
	tail := make([][]float64, len(cols))
	for j := range cols {
		tail[j] = z[j][model:]
	}
	m, _, ok := likeliestErrorModel(dy[model:], tail)
	if !ok {
		return 0, false
	}
	g := newGLS(n-2, len(z))
	df := float64(n - 2 - len(z) - 2)
	if df < 1 {
		return 0, false
	}
	if _, ok := g.fitFamily(dy, z, m.phi, m.r, m.integ); !ok {
		return 0, false
	}
	k := len(extra)
	first := len(cols)
	s2 := g.ssr / df
	b := mat.NewVecDense(k, nil)
	V := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		b.SetVec(i, g.beta[first+i])
		for j := i; j < k; j++ {
			V.SetSym(i, j, s2*g.inv.At(first+i, first+j))
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(V) {
		return 0, false
	}
	var x mat.VecDense
	if err := chol.SolveVecTo(&x, b); err != nil {
		return 0, false
	}
	return distuv.F{D1: float64(k), D2: df}.Survival(mat.Dot(b, &x) / float64(k)), true
}

// warmupZ is how many standard deviations (of batch means of the tail
// residuals) a batch must deviate to count as warm-up.
const warmupZ = 4.0

// trimCut moves a proposed warm-up cut back to the end of the last batch
// before it whose mean deviates from the mean of ref by more than z standard
// deviations of ref's batch means, or by more than sdFloor (0 if none does). ref is the stretch the
// tail fit was made on (the last half), so it is not chosen by MSER and
// carries no selection bias. MSER alone tends to overshoot on
// autocorrelated noise, cutting a stretch of ordinary noise after the true
// end of warm-up; the trim keeps only what is distinguishable from noise.
func trimCut(resid []float64, proposed, batch int, z float64, ref []float64, sdFloor float64) int {
	m := len(ref) / batch
	if m < 2 {
		return proposed
	}
	mu := mean(ref)
	var ss float64
	for j := 0; j < m; j++ {
		d := mean(ref[j*batch:(j+1)*batch]) - mu
		ss += d * d
	}
	sd := math.Max(sdFloor, math.Sqrt(ss/float64(m-1)))
	for j := proposed/batch - 1; j >= 0; j-- {
		if math.Abs(mean(resid[j*batch:(j+1)*batch])-mu) > z*sd {
			return (j + 1) * batch
		}
	}
	return 0
}
