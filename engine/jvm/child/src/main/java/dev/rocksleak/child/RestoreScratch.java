package dev.rocksleak.child;

import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * The scenario's restore scratch (restore_scratch_bytes), as the Go engine's lifecycle.Scratch: n bytes of C memory,
 * every byte touched, held from a restore's start to its end and then freed. It is a synthetic negative control for
 * the leak estimators (the restore-peak scenario: large transient peaks that must not be called a leak), not a Kafka
 * code path: Kafka's restore allocates no such buffer.
 *
 * <p>The bytes come from the C allocator's malloc through JNA (glibc's, or jemalloc's when it is preloaded), as
 * RocksDB's own allocations do, so the sampler's native heap (mallinfo2, or jemalloc's stats.allocated) counts them
 * while they are held. Not Unsafe.allocateMemory: the JVM's os::malloc counts that in Native Memory Tracking's malloc
 * total, the runtime_malloc the analysis subtracts as the JVM's own (64 MiB held that way moved NMT's malloc total by
 * 64 MiB; through JNA, by 565 KB: none of it the scratch). Not a direct ByteBuffer: the JVM's too, and freed only
 * when collected.
 *
 * <p>One owner: the restore that holds it, in a try-with-resources, so it is freed when the restore ends, fails or
 * throws. {@link #close} is idempotent.
 */
final class RestoreScratch implements AutoCloseable {
    private long address;

    private RestoreScratch(final long address) {
        this.address = address;
    }

    /** Mallocs n bytes and touches every one (0xA5, as the Go engine); none when n &lt;= 0. */
    static RestoreScratch hold(final long n) {
        if (n <= 0) {
            return new RestoreScratch(0);
        }
        final long p = Native.malloc(n);
        if (p == 0) {
            throw new OutOfMemoryError("restore scratch: malloc(" + n + ")");
        }
        new Pointer(p).setMemory(0, n, (byte) 0xA5);
        return new RestoreScratch(p);
    }

    /** Whether it holds memory now (for tests). */
    boolean held() {
        return address != 0;
    }

    /** Frees the bytes; a second call does nothing. */
    @Override
    public void close() {
        if (address != 0) {
            Native.free(address);
            address = 0;
        }
    }
}
