package dev.rocksleak.child;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The restores' durations (ns) and their median with a distribution-free 95% interval. */
final class RestoreTimes {
    private final List<Long> times = new ArrayList<>();

    void add(final long ns) {
        times.add(ns);
    }

    /** Median and a distribution-free 95% interval for it, as the Go harness's restoreStats: p50, low, high, max. */
    long[] stats() {
        if (times.isEmpty()) {
            return new long[] {0, 0, 0, 0};
        }
        final List<Long> s = new ArrayList<>(times);
        Collections.sort(s);
        final int n = s.size();
        final long p50 = s.get((n - 1) / 2);
        final long max = s.get(n - 1);
        final int j = medianRank(n, 0.025);
        long lo = 0, hi = 0;
        if (j > 0) {
            lo = s.get(j - 1);
            hi = s.get(n - j);
        }
        return new long[] {p50, lo, hi, max};
    }

    /** The largest rank j with P(Binomial(n, 1/2) < j) <= a (harness.medianRank). */
    static int medianRank(final int n, final double a) {
        double cdf = 0;
        int j = 0;
        for (int k = 0; k < n; k++) {
            cdf += Math.exp(lgammaInt(n) - lgammaInt(k) - lgammaInt(n - k) - n * Math.log(2));
            if (cdf > a) {
                break;
            }
            j = k + 1;
        }
        return j;
    }

    private static double lgammaInt(final int x) { // log(x!)
        double s = 0;
        for (int i = 2; i <= x; i++) {
            s += Math.log(i);
        }
        return s;
    }
}
