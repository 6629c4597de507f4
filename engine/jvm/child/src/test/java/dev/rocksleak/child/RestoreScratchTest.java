package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restore scratch (restore_scratch_bytes) on Kafka's own stores, read by the child's own sampler: a restore holds
 * that many bytes of touched C memory to its end (the native heap, mallinfo2, and RSS fall by about the scratch when
 * the restore returns) and frees them, also when the restore fails; with no scratch, nothing of the kind (the
 * negative control). The restore here is the one a fully refused open calls for (InitTries; every Kafka version's).
 * Shown failing with RestoreScratch.hold's malloc and touch commented out (the native heap fell by 0 B at the
 * restore's end, expected about 64 MiB), and with its close's free commented out (the failed restore left the
 * native heap 64 MiB up).
 */
class RestoreScratchTest {
    static final long SCRATCH = 64L << 20;
    /** What else may move the native heap between two readings around one restore's end (the JIT's mallocs). */
    static final long NOISE = 4L << 20;

    @TempDir
    Path dir;
    final KafkaStoresTest k = new KafkaStoresTest();

    @AfterEach
    void tearDown() throws Exception {
        k.close();
    }

    /** The native heap and RSS at the end of one restore (its scratch held) and after the op that called for it. */
    long[] aroundTheRestoresEnd(final long scratch) throws Exception {
        k.dir = dir;
        final Executor ex = k.executor("kv", ",\"restore_scratch_bytes\":" + scratch);
        try (Sampler s = new Sampler("glibc")) {
            final Sampler.Reading[] during = new Sampler.Reading[1];
            ex.atRestoreEnd = () -> {
                try {
                    during[0] = s.read(false);
                } catch (final IOException e) {
                    throw new IllegalStateException(e);
                }
            };
            k.run(InitFailuresTest.open(InitTries.TRIES));
            final Sampler.Reading after = s.read(false);
            assertEquals(1, ex.restores, "every try refused: restored into a fresh directory");
            return new long[] {during[0].nativeHeap - after.nativeHeap, during[0].rss - after.rss};
        }
    }

    @Test
    void aRestoreHoldsItsScratchToItsEndAndFreesIt() throws Exception {
        final long[] fell = aroundTheRestoresEnd(SCRATCH);
        assertTrue(Math.abs(fell[0] - SCRATCH) < NOISE,
            "the native heap fell by " + fell[0] + " B at the restore's end, expected about " + SCRATCH);
        assertTrue(fell[1] > SCRATCH - NOISE, "RSS fell by " + fell[1] + " B: every page touched, then unmapped");
    }

    @Test
    void noScratchNoneHeld() throws Exception {
        final long[] fell = aroundTheRestoresEnd(0);
        assertTrue(Math.abs(fell[0]) < NOISE, "the native heap fell by " + fell[0] + " B at the restore's end");
    }

    /** A task directory that is a file: the first open and the restore's open both fail; the scratch is freed. */
    @Test
    void aFailedRestoreFreesItsScratch() throws Exception {
        k.dir = dir;
        final Executor ex = k.executor("kv", ",\"restore_scratch_bytes\":" + SCRATCH);
        Files.createDirectories(dir.resolve("state"));
        Files.writeString(dir.resolve("state").resolve("task-0"), "not a directory");
        try (Sampler s = new Sampler("glibc")) {
            final long before = s.nativeHeap();
            k.run(KafkaStoresTest.OPEN);
            final long grew = s.nativeHeap() - before;
            assertEquals(0, ex.restores, "the restore's open failed");
            assertEquals(2, ex.taskErrors, ex.taskErrorExamples.toString());
            assertTrue(ex.taskErrorExamples.toString().contains("restore: "), ex.taskErrorExamples.toString());
            // Not NOISE: the first RocksDB open in this JVM mallocs its own (7.8 MB when this test ran first); a
            // scratch not freed would add its 64 MiB.
            assertTrue(grew < SCRATCH / 2, "the native heap grew by " + grew + " B over a failed restore");
        }
    }

    /** close() frees once; a second close does nothing. */
    @Test
    void closeTwice() {
        final RestoreScratch s = RestoreScratch.hold(1 << 20);
        assertTrue(s.held());
        s.close();
        s.close();
        assertFalse(s.held());
        assertFalse(RestoreScratch.hold(0).held(), "no scratch: nothing malloc'd");
    }
}
