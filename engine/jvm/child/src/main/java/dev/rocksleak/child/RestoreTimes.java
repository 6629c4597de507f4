package dev.rocksleak.child;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import com.fasterxml.jackson.core.JsonGenerator;

/**
 * The restores' durations (ns) and records replayed, in the order they ended, and the durations' median with a
 * distribution-free 95% interval.
 */
final class RestoreTimes {
    private final List<Long> times = new ArrayList<>();
    private final List<Long> records = new ArrayList<>();

    /** Counts a restore that took ns and replayed n changelog records. */
    void add(final long ns, final long n) {
        times.add(ns);
        records.add(n);
    }

    /**
     * Writes the summary's restore object: the Go schema.RestoreStats's keys (checked against the Go side's golden,
     * harness/testdata/protocol/restore.json, by ProtocolTest), each restore's duration and records included when
     * there were restores; recordsTotal and segmentLifecycles are the executor's tallies.
     */
    void write(final JsonGenerator g, final long recordsTotal, final long segmentLifecycles) throws IOException {
        final long[] rs = stats();
        g.writeObjectFieldStart("restore");
        g.writeNumberField("count", times.size());
        g.writeNumberField("p50_ns", rs[0]);
        g.writeNumberField("p50_low_ns", rs[1]);
        g.writeNumberField("p50_high_ns", rs[2]);
        g.writeNumberField("max_ns", rs[3]);
        if (!times.isEmpty()) {
            longs(g, "durations_ns", times);
            longs(g, "records_each", records);
        }
        g.writeNumberField("records", recordsTotal);
        g.writeNumberField("segment_lifecycles", segmentLifecycles);
        g.writeEndObject();
    }

    private static void longs(final JsonGenerator g, final String name, final List<Long> xs) throws IOException {
        g.writeArrayFieldStart(name);
        for (final long x : xs) {
            g.writeNumber(x);
        }
        g.writeEndArray();
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
