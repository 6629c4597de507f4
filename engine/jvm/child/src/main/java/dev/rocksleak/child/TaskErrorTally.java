package dev.rocksleak.child;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The distinct task errors (texts that differ only in their numbers share one), each capped at 300 characters, at
 * most 5, with how many task errors had each: the Go child's rule (schema.TaskErrorTally); and the task errors whose
 * cause chain names a storage fault, by fault (schema.StorageFaults' words).
 */
final class TaskErrorTally {
    final List<String> examples = new ArrayList<>();
    final List<Long> counts = new ArrayList<>();
    final Map<String, Long> storageFaults = new TreeMap<>();
    private final Map<String, Integer> index = new HashMap<>();
    private static final String[][] STORAGE_FAULTS = {
        {"ENOSPC", "No space left on device"}, {"EROFS", "Read-only file system"}, {"EIO", "Input/output error"}};

    /** Tallies one task error of the slot's store. */
    void add(final Slot slot, final Throwable e) {
        // The whole cause chain, as Kafka logs it: a ProcessorStateException's own message does not say that
        // RocksDB's open failed with "No space left on device"; its cause does (the parent reads storage faults
        // from these texts).
        final StringBuilder chain = new StringBuilder(String.valueOf(e));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            chain.append("; caused by: ").append(c);
        }
        final String msg = chain.toString().strip().replace('\n', ' ');
        for (final String[] f : STORAGE_FAULTS) {
            if (msg.contains(f[1])) {
                storageFaults.merge(f[0], 1L, Long::sum);
            }
        }
        final String key = msg.replaceAll("[0-9]+", "#");
        final Integer i = index.get(key);
        if (i != null) {
            counts.set(i, counts.get(i) + 1);
        } else if (examples.size() < 5) {
            String ex = "task " + slot.task + " " + slot.name() + ": " + msg;
            if (ex.length() > 300) {
                ex = ex.substring(0, 299) + "\u2026";
            }
            index.put(key, examples.size());
            examples.add(ex);
            counts.add(1L);
        }
    }
}
