package dev.rocksleak.child;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The record values both executors write: a port, bit for bit, of the Go workload package's RecordValue and
 * SplitMix64 (workload/value.go; known answers in workload/testdata/values.json, asserted by RecordValueTest).
 * Unsigned 64-bit arithmetic is Java's long arithmetic (wrapping), with unsigned shifts.
 */
public final class RecordValue {
    private RecordValue() {
    }

    /** The value of key at ts and version ver in store store of task task, n bytes long. */
    public static byte[] of(final long seed, final int n, final int task, final int store, final String key,
                            final long ts, final long ver) {
        final byte[] b = new byte[n];
        long h = seed ^ ((long) task << 40) ^ ((long) store << 32) ^ (ver * 0x9e3779b97f4a7c15L) ^ ts;
        for (final byte c : key.getBytes(StandardCharsets.UTF_8)) { // Go: []byte(key)
            h = (h ^ (c & 0xffL)) * 0x100000001b3L;
        }
        for (int i = 0; i < n; i += 8) {
            h = splitMix64(h);
            for (int j = 0; j < 8 && i + j < n; j++) {
                b[i + j] = (byte) (h >>> (8 * j)); // little endian
            }
        }
        return b;
    }

    /** v behind its 8-byte big-endian timestamp ts: a timestamped store's value (Kafka's ValueAndTimestamp bytes). */
    static byte[] withTimestamp(final long ts, final byte[] v) {
        return ByteBuffer.allocate(8 + v.length).putLong(ts).put(v).array();
    }

    /** One step of SplitMix64 (the increment added first). */
    public static long splitMix64(long x) {
        x += 0x9e3779b97f4a7c15L;
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }
}
