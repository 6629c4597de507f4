package dev.rocksleak.child;

import java.io.File;
import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;

import com.sun.jna.Native;
import com.sun.jna.Pointer;

import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.internals.RocksleakStores;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;

/**
 * One opened instance of a slot's store, and the hooks its RocksDB instances report to: each DB opened and closed
 * goes to the executor's open DBs and (instrumented) its ledger; a counted instance's closes count lifecycles and
 * failed closes on the executor. The fault arm (armed, sticky) is what the hooks tell Kafka's close.
 */
final class Instance implements RocksleakStores.Hooks {
    private static final Field DEFAULT_READ_OPTIONS = defaultReadOptionsField();

    private final Executor ex;
    final Slot slot;
    StateStore store;
    StoreContext ctx;
    boolean armed;
    boolean sticky;
    final boolean counted;

    Instance(final Executor ex, final Slot slot, final boolean counted) {
        this.ex = ex;
        this.slot = slot;
        this.counted = counted;
    }

    /**
     * Builds and inits a slot's store (a window store at streamTime) with the stores' app configs; the exception
     * is Kafka's, and a counted instance's failure is a failed init on the executor.
     */
    static Instance open(final Executor ex, final Slot slot, final boolean counted,
        final Map<String, Object> appConfigs) {
        final Instance inst = new Instance(ex, slot, counted);
        final String name = slot.name();
        switch (ex.job.store) {
            case "window":
                inst.store = RocksleakStores.timestampedWindow(name, ex.job.retentionMs, ex.job.segmentInterval(),
                    ex.job.segmentInterval(), inst);
                break;
            case "migrating":
                inst.store = RocksleakStores.timestampedKeyValue(name, inst);
                break;
            default:
                inst.store = RocksleakStores.keyValue(name, inst);
        }
        final File dir = slot.taskDir();
        dir.mkdirs();
        inst.ctx = new StoreContext(slot.task, dir, ex.job.exactlyOnce, appConfigs);
        try {
            inst.store.init(inst.ctx.context(), inst.store);
        } catch (final RuntimeException e) {
            if (counted) {
                // A failed init, whatever refused it (a held LOCK, an unclean status under exactly-once): counted as
                // the Go engine's lifecycle.Open counts every open that fails (Sample.InitFailures).
                ex.initFailures++;
            }
            // What init opened before it failed (a window store's earlier segments) is closed, not left open.
            try {
                inst.store.close();
            } catch (final RuntimeException ignored) {
                // closing a half-initialised store may throw; the failure reported is init's
            }
            throw e;
        }
        return inst;
    }

    @Override
    public void offsetsOptions(final ColumnFamilyOptions options) {
        if (ex.instrumented) {
            ex.ledger.track(Ledger.OPTIONS, options);
        }
    }

    @Override
    public void opened(final RocksDB db, final List<ColumnFamilyHandle> handles) {
        ex.openDbs.opened(db);
        if (!ex.instrumented) {
            return;
        }
        ex.ledger.track(Ledger.DB, db);
        for (final ColumnFamilyHandle h : handles) {
            ex.ledger.track(Ledger.CF_HANDLE, h);
        }
        ex.ledger.track(Ledger.READ_OPTIONS, defaultReadOptions(db));
    }

    @Override
    public boolean armed() {
        return armed;
    }

    @Override
    public boolean sticky() {
        return sticky;
    }

    @Override
    public void closed(final RocksDB db, final String statusWriteError, final int releasedLate) {
        ex.openDbs.closed(db);
        if (ex.job.readOptionsFix) {
            // facebook/rocksdb#15069 (open): RocksDB.close() also closes defaultReadOptions_. Kafka has just closed
            // the DB; close its read options as that fix would.
            final ReadOptions ro = defaultReadOptions(db);
            if (ro != null) {
                ro.close();
            }
        }
        if (!counted) {
            return;
        }
        ex.lifecycles++;
        if (statusWriteError != null) {
            ex.failedCloses++;
            if (ex.firstCloseError == null) {
                ex.firstCloseError = statusWriteError;
            }
        }
        if (ex.instrumented) {
            ex.ledger.releasedLate(Ledger.CF_HANDLE, releasedLate);
        }
        if (ex.job.synthetic) {
            syntheticLeak();
        }
    }

    private void syntheticLeak() {
        // The calibration's positive control: C memory malloc'd, touched and never freed.
        final long n = ex.job.syntheticLeakBytes;
        final long p = Native.malloc(n);
        if (p == 0) {
            throw new OutOfMemoryError("malloc(" + n + ")");
        }
        new Pointer(p).setMemory(0, n, (byte) 0x5a);
        if (ex.instrumented) {
            ex.ledger.trackSynthetic();
        }
    }

    private static Field defaultReadOptionsField() {
        try {
            final Field f = RocksDB.class.getDeclaredField("defaultReadOptions_");
            f.setAccessible(true);
            return f;
        } catch (final NoSuchFieldException e) {
            return null; // RocksJava before 8.10 has none
        }
    }

    /** RocksJava's defaultReadOptions_ of db (null before RocksJava 8.10). */
    static ReadOptions defaultReadOptions(final RocksDB db) {
        if (DEFAULT_READ_OPTIONS == null) {
            return null;
        }
        try {
            return (ReadOptions) DEFAULT_READ_OPTIONS.get(db);
        } catch (final IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
