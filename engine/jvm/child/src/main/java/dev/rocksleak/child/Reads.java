package dev.rocksleak.child;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The read ops of a read_back scenario (workload/doc.go: get and range) on Kafka's own stores, as a reading
 * application reads them: a point read through the store's get (a window store's fetch(key, time)), a range read
 * through all() with its iterator closed. Both go through RocksDBStore's read path and so its per-store block cache
 * (Kafka's default: a 50 MB LRUCache per store, RocksDBStore.openDB). Results are not checked: a get may precede the
 * record's first put.
 */
final class Reads {
    private Reads() {
    }

    /** op get: a point read of key at ts in store (of the job's kind: window, migrating or kv). */
    @SuppressWarnings("unchecked")
    static void get(final StateStore store, final String kind, final String key, final long ts) {
        final Bytes k = Bytes.wrap(key.getBytes(StandardCharsets.US_ASCII));
        if (kind.equals("window")) {
            ((WindowStore<Bytes, byte[]>) store).fetch(k, ts);
        } else {
            ((KeyValueStore<Bytes, byte[]>) store).get(k);
        }
    }

    /** op range: reads every record of store through all() and closes the iterator; returns the records read. */
    @SuppressWarnings("unchecked")
    static long scan(final StateStore store, final String kind) {
        long n = 0;
        if (kind.equals("window")) {
            try (KeyValueIterator<?, byte[]> it = ((WindowStore<Bytes, byte[]>) store).all()) {
                for (; it.hasNext(); it.next()) {
                    n++;
                }
            }
        } else {
            try (KeyValueIterator<Bytes, byte[]> it = ((KeyValueStore<Bytes, byte[]>) store).all()) {
                for (; it.hasNext(); it.next()) {
                    n++;
                }
            }
        }
        return n;
    }
}
