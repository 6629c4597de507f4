// Package stats turns memory samples into leak verdicts. It works on
// numbers only: no I/O, no processes, no formatting beyond the sentences in
// Decision.Reason and in Warnings.
//
// # Data and units
//
// A signal (native heap bytes, RSS bytes, or a count such as open file
// descriptors) is sampled n times during a run, together with cumulative
// event counters: store lifecycles, failed closes and records written
// (Input). Slopes are in units of the signal per unit of counter, e.g.
// bytes per lifecycle; raw numbers are never rescaled except
// PerMillionRecords (per 10⁶ records).
//
// # Pipeline
//
// FitSignal cuts the warm-up, then regresses the signal on the counters:
//
//   - Warm-up: a fit to the last half of the run is extrapolated back and
//     MSER-5 (White 1997) is applied to the residuals, so a series that
//     trends throughout (a leak) keeps all its samples while a rise that
//     levels off, or a transient peak, is cut. The MSER cut is trimmed back
//     to the last 5-sample batch that deviates from the tail by more than 4
//     standard deviations, because MSER overshoots on autocorrelated noise.
//     Fit.WarmupReason says what was cut and why.
//   - Level shifts: a single step that explains the series better than a
//     line and better than a bend is reported in Fit.Step; Decide does not
//     read a step as a per-lifecycle slope.
//   - Slopes and intervals, by Options.Interval:
//     IntervalCochraneOrcutt (the zero value, unchanged results): Regress,
//     one-step Cochrane–Orcutt feasible GLS with the AR(1) coefficient of the
//     OLS residuals, then Newey–West (Bartlett kernel, Andrews 1991 AR(1)
//     plug-in bandwidth) on the quasi-differenced model, Student-t with
//     n−k−1 df. It covers ≈93% under AR(1) φ = 0.7 at n = 500 but 0.2–0.5
//     under random-walk errors, which RSS shows on real runs, and 0.5–0.7 at
//     n = 40 (scripts/statscheck).
//     IntervalRobust: RegressRobust, GLS under an "AR(1) plus random walk"
//     error model whose parameters are chosen per series by profile
//     likelihood, in two families (the random walk's steps white, or AR(1):
//     growth in bursts); the estimate is the white-step family's, with
//     the largest of its standard errors under the models of the
//     likelihood-ratio region of both. Coverage in make stats-check is
//     conservative at small n and near a unit root (up to 1.00) and falls
//     below 0.90 only for a random walk plus noise (0.89), whose small
//     random-walk share the region can leave out (see the README). Fits
//     then carry Flags.
//     IntervalRobustBatch (what the tool uses for RSS: see
//     analysis.OptionsFor): RegressRobustBatch, the same
//     GLS estimate with the wider of that interval and a batch-means
//     (cluster, fixed-b) interval of it, FitBatches (12) consecutive batches of the
//     whitened scores, Student-t with 11 df: a safeguard for an error model
//     the likelihood gets wrong. Before the error model had its integrated
//     (bursty) family, RSS slopes on 20 seeds of kafka-20616, with restored
//     records as a regressor (Input.RestoredRecords), spread 1.07–1.38× the
//     profile-likelihood standard error and 0.74–1.00× this one; with it,
//     see the README ("RSS: restores and bursts").
//     IntervalCalibrated (what the tool uses for the native heap, issue 29):
//     RegressCalibrated, the same GLS estimate with the batch-means interval
//     alone where the likelihood region does not widen RegressRobust's
//     interval, RegressRobustBatch's where it does, and RegressRobust's
//     below CalibratedMinSamples samples: on 20 seeds of kafka-20616 the
//     native heap's across-seed spread over its median SE went from 0.47 to
//     0.73, with every simulated case still covered at least 0.90.
//   - Cross-checks: Theil–Sen slope (robust to outliers) and a Mann–Kendall
//     trend test whose variance is inflated for autocorrelation (Hamed–Rao
//     1998, Yue–Wang 2004).
//
// Decisions:
//
//   - DecideSignals: two one-sided tests per signal. "No leak" only when
//     every signal's interval lies below its floor (equivalence), "leak"
//     only when the native heap's lies above its floor and RSS's interval
//     reaches that floor (RSS consistent with a leak); never for growth
//     that slows (FlagSlows); a blocking Flag (too few samples, warm-up cut at its
//     limit, slope not constant, unmodelled random walk, level shift) makes
//     it inconclusive, and Decision.Settle says what would settle it.
//   - CompareFits: a controlled verdict, model against control, with an
//     interval on the difference (Welch–Satterthwaite df from the fits' own
//     dfs, optional between-run SD) and a decision against a margin; finds
//     leaks below any floor. Interaction: the interval on a 2×2
//     attribution's interaction term.
//   - StopRule: early verdicts by Lan–DeMets O'Brien–Fleming-type error
//     spending (Bonferroni over looks), no look before the warm-up is over;
//     guarded (the rule of --until-verdict), no early "no leak" before a
//     late leak could have shown, no early "leak" on growth that slows.
//
// stats/simulate holds the seeded simulation suite that measures
// all of this (make stats-check), and the legacy rule (simulate.LegacyDecide)
// that the suite compares DecideSignals with; no run decides by it.
//
// # Errors and warnings
//
// Functions return errors only for malformed input (unequal lengths, NaN).
// Statistical caveats (too few samples, a counter that never varies, a
// warm-up that may not be over, signals that disagree) are Warnings on the
// result, and estimates that cannot be trusted have Valid == false. No
// result field is NaN or infinite, so results encode as JSON.
package stats
