package dev.rocksleak.child;

import java.lang.reflect.Method;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateStore;

/**
 * A store's part of a task commit, by Kafka version: StateStore.commit(Map) where the Kafka jar has it (4.3 on,
 * KIP-1035), else StateStore.flush() (4.0 to 4.2).
 */
final class StoreCommit {
    private StoreCommit() {
    }

    /** StateStore.commit(Map) where the Kafka jar has it (4.3 on), else null: the store is flushed (4.0 to 4.2). */
    private static final Method COMMIT = commitMethod();

    private static Method commitMethod() {
        try {
            return StateStore.class.getMethod("commit", Map.class);
        } catch (final NoSuchMethodException e) {
            return null;
        }
    }

    /** Commits the store's changelog offsets (or flushes it); the exception is the store's own. */
    @SuppressWarnings("deprecation")
    static void commit(final StateStore store, final Map<TopicPartition, Long> offsets) throws Exception {
        if (COMMIT == null) {
            store.flush();
            return;
        }
        try {
            COMMIT.invoke(store, offsets);
        } catch (final java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof Exception) {
                throw (Exception) e.getCause();
            }
            throw e;
        }
    }
}
