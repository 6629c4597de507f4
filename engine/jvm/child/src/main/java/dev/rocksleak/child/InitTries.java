package dev.rocksleak.child;

import java.util.Map;

import org.rocksdb.RocksDBException;

/**
 * A key-value store's open with injected init failures (op open's init_failures): Kafka's init of the slot's store,
 * tried until it succeeds, fails otherwise than by an injected failure, or has been tried TRIES times (the last
 * exception thrown). The first initFailures tries run while a LockHolder holds the store's directory, so RocksDB
 * refuses Kafka's open; each refused try is a failed init (Instance.open counts it).
 */
final class InitTries {
    /**
     * How many times an open that fails only by an injected init failure is tried: once and up to five retries
     * (workload.InitTries, the Go engine's initTries).
     */
    static final int TRIES = 6;

    private InitTries() {
    }

    static Instance open(final Executor ex, final Slot slot, final int initFailures,
        final Map<String, Object> appConfigs) {
        RuntimeException last = null;
        for (int i = 0; i < TRIES; i++) {
            if (i >= initFailures) {
                return Instance.open(ex, slot, true, appConfigs);
            }
            try (LockHolder held = LockHolder.hold(slot.keyValueDbDir())) {
                Instance.open(ex, slot, true, appConfigs).store.close();
                throw new IllegalStateException(slot.name() + " opened though its LOCK was held");
            } catch (final RocksDBException e) {
                throw new IllegalStateException("holding " + slot.name() + "'s LOCK: " + e, e);
            } catch (final RuntimeException e) {
                if (!isLockRefusal(ex, e)) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    /**
     * Whether RocksDB refused an open because the directory's LOCK is held (the cause chain names it); the first
     * such error goes to ex.firstInitError.
     */
    private static boolean isLockRefusal(final Executor ex, Throwable e) {
        for (; e != null; e = e.getCause()) {
            if (e instanceof RocksDBException && String.valueOf(e.getMessage()).contains("lock")) {
                if (ex.firstInitError == null) {
                    ex.firstInitError = e.getMessage();
                }
                return true;
            }
        }
        return false;
    }
}
