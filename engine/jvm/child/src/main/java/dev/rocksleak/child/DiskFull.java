package dev.rocksleak.child;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Path;

/**
 * rocksleak disk-full on Kafka's own stores (harness.DiskFullJob; the Go engine's runDiskFull): the state directory,
 * a small file system of the parent's, is filled until the kernel answers ENOSPC, then the scenario's first store of
 * each task in turn is opened, one attempt at a time, as a task's re-initialisation after a replaced stream thread
 * opens it: Kafka's RocksDBStore.openDB meets RocksDB's "IO error: No space left on device" and throws
 * ProcessorStateException. A window store opens no segment at init; its first record's put creates one, whose open
 * fails the same way inside Kafka's AbstractSegments.getOrCreateSegment. Each failed open is a failed init (a store's
 * counted by Instance.open, a segment's here) and a task error; an attempt that succeeds writes its record and
 * closes the store.
 */
final class DiskFull {
    private DiskFull() {
    }

    /** Writes a file in dir until the file system is full (the error that is not ENOSPC is thrown). */
    static void fill(final Path dir) throws IOException {
        final byte[] buf = new byte[4096];
        try (FileOutputStream f = new FileOutputStream(dir.resolve("filler").toFile())) {
            while (true) {
                f.write(buf);
            }
        } catch (final IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
                throw new IOException("filling " + dir + ": " + e.getMessage(), e);
            }
        }
    }

    /** Attempt i: task i mod tasks' first store opened (and, open, written once and closed). */
    static void attempt(final Executor ex, final int i) throws IOException {
        final Slot slot = ex.slots[i % ex.slots.length][0];
        try {
            slot.inst = Instance.open(ex, slot, true, ex.appConfigs);
        } catch (final RuntimeException e) {
            ex.taskError(slot, e);
            return;
        }
        final long errors = ex.taskErrors;
        ex.put(slot, "key-000000", 0, 1);
        if (ex.job.store.equals("window") && ex.taskErrors > errors) {
            ex.initFailures++; // the put's segment open failed (Instance.open counts a store's own)
        }
        ex.closeSlot(slot, false);
    }
}
