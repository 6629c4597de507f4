package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/rocksleak/rocksleak/internal/units"
	"github.com/rocksleak/rocksleak/results"
	"github.com/rocksleak/rocksleak/schema"
	"github.com/rocksleak/rocksleak/stats"
)

// Write writes rep as reliability.json into dir (making it; the file
// atomically) and prints its tables to w: verdicts and spread per model, the
// controlled verdicts, with --until-verdict when the verdicts settled, the
// calibration errors, and where the results are.
func Write(w io.Writer, dir string, rep *schema.Reliability) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, "reliability.json"), append(b, '\n')); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tleak\tno leak\tinconclusive\tfailed\tnative/lifecycle mean ± sd\tspread/SE\tRSS/lifecycle mean ± sd\tspread/SE")
	for _, m := range rep.Models {
		t := rep.Tally[m]
		n := len(rep.Seeds)
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%d/%d\t%d/%d\t%s\t%s\t%s\t%s\n", m, t.Leak, n, t.NoLeak, n, t.Inconclusive, n, t.Failed, n,
			meanSD(t.NativePerLifecycle), ratioCell(t.NativePerLifecycle, t.NativeSE),
			meanSD(t.RSSPerLifecycle), ratioCell(t.RSSPerLifecycle, t.RSSSE))
	}
	tw.Flush()
	fmt.Fprintln(w, "spread/SE: the across-seed standard deviation of the slope over the median reported standard error (goal 0.75 to 1.33: above, the intervals are narrower than the spread, below, wider; needs 3 seeds)")
	if len(rep.Controlled) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "controlled verdict\tleak\tno difference\tinconclusive\tmodel − control/lifecycle mean ± sd\tlifecycles (max)")
		for _, key := range sortedKeys(rep.Controlled) {
			ct := rep.Controlled[key]
			n := len(ct.Differences)
			var maxL int64
			for _, l := range ct.Lifecycles {
				maxL = max(maxL, l)
			}
			fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%d/%d\t%s\t%d\n", key, ct.Leak, n, ct.NoLeak, n, ct.Inconclusive, n,
				meanSD(ct.Differences), maxL)
		}
		tw.Flush()
	}
	if rep.UntilVerdict {
		for _, m := range rep.Models {
			t := rep.Tally[m]
			fmt.Fprintf(w, "until-verdict %s: native verdict settled in %d/%d runs, max %.1fs, %s lifecycles; verdict settled in %d/%d, max %.1fs, %s lifecycles; early verdict leak in %d\n",
				m, len(t.NativeSettledS), len(rep.Seeds), maxOf(t.NativeSettledS), lifecycleRange(t.NativeSettledLifecycles),
				len(t.VerdictSettledS), len(rep.Seeds), maxOf(t.VerdictSettledS), lifecycleRange(t.VerdictSettledLifecycles), t.EarlyLeak)
		}
	}
	calibModels := make([]string, 0, len(rep.Calib))
	for m := range rep.Calib {
		calibModels = append(calibModels, m)
	}
	slices.Sort(calibModels)
	for _, m := range calibModels {
		ct := rep.Calib[m]
		fmt.Fprintf(w, "calibration %s: native heap error %s, RSS error %s (relative, mean ± sd; max |error| %.2f%% and %.2f%%)\n",
			m, pctMeanSD(ct.NativeErrors), pctMeanSD(ct.RSSErrors), 100*maxAbs(ct.NativeErrors), 100*maxAbs(ct.RSSErrors))
	}
	fmt.Fprintf(w, "\nresults: %s\n", dir)
	return nil
}

// lifecycleRange prints the least and the most of ls and their median,
// "min–max (median m)", or "no" when ls is empty.
func lifecycleRange(ls []int64) string {
	if len(ls) == 0 {
		return "no"
	}
	f := make([]float64, len(ls))
	for i, l := range ls {
		f[i] = float64(l)
	}
	return fmt.Sprintf("%d–%d (median %g)", slices.Min(ls), slices.Max(ls), stats.Median(f))
}

// spreadRatio is the across-seed standard deviation of slopes over the
// median of their reported standard errors: about 1 when the intervals are
// honest about seed-to-seed variation. ok is false with fewer than 3 slopes
// or no positive standard error.
func spreadRatio(slopes, ses []float64) (ratio float64, ok bool) {
	if len(slopes) < 3 || len(ses) == 0 {
		return 0, false
	}
	_, sd := moments(slopes)
	med := stats.Median(ses)
	if !(med > 0) {
		return 0, false
	}
	return sd / med, true
}

func ratioCell(slopes, ses []float64) string {
	r, ok := spreadRatio(slopes, ses)
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f", r)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func meanSD(x []float64) string {
	if len(x) == 0 {
		return "-"
	}
	m, sd := moments(x)
	return fmt.Sprintf("%s ± %s", units.FormatSignedBytes(float64(int64(math.Round(m)))), units.FormatBytes(sd))
}

func pctMeanSD(x []float64) string {
	m, sd := moments(x)
	return fmt.Sprintf("%+.2f%% ± %.2f%%", 100*m, 100*sd)
}

// moments is the mean and the sample standard deviation of x, the deviation
// 0 (not NaN) below 2 values: one seed has no spread to show.
func moments(x []float64) (mean, sd float64) {
	mean, sd = stat.MeanStdDev(x, nil)
	if len(x) < 2 {
		sd = 0
	}
	return mean, sd
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func maxOf(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}
