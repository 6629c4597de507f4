package dev.rocksleak.child;

import java.util.Map;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/** Kafka's own figures of an application's task, read from its TopologyTestDriver's metrics (AppRun). */
final class KafkaFigures {
    private KafkaFigures() {
    }

    /**
     * Kafka's own figures from the driver's metrics, summed over its stores (and each store's block-cache-capacity
     * given to AppSetter, for its cache): RocksDB's size-all-mem-tables,
     * estimate-table-readers-mem and block-cache-usage (KIP-607; a cache shared by n stores counts n times),
     * KIP-989's num-open-iterators, and the task's punctuate-total (recorded at metrics.recording.level DEBUG
     * only; 0 otherwise).
     */
    static long[] of(final Map<MetricName, ? extends Metric> metrics) {
        final long[] k = new long[5];
        for (final Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            final int i;
            switch (e.getKey().name()) {
                case "block-cache-capacity": capacity(e.getKey(), e.getValue()); continue;
                case "size-all-mem-tables": i = 0; break;
                case "estimate-table-readers-mem": i = 1; break;
                case "block-cache-usage": i = 2; break;
                case "num-open-iterators": i = 3; break;
                case "punctuate-total": i = 4; break;
                default: continue;
            }
            final Object v = e.getValue().metricValue();
            if (v instanceof Number) {
                k[i] += ((Number) v).longValue();
            }
        }
        return k;
    }

    /** Gives AppSetter the capacity of a store's block cache (the metric's store tag, rocksdb-state-id). */
    private static void capacity(final MetricName name, final Metric m) {
        final Object v = m.metricValue();
        for (final Map.Entry<String, String> t : name.tags().entrySet()) {
            if (t.getKey().endsWith("-state-id") && v instanceof Number) {
                AppSetter.capacity(t.getValue(), ((Number) v).longValue());
            }
        }
    }
}
