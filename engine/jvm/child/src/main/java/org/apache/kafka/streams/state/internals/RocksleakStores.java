package org.apache.kafka.streams.state.internals;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.metrics.RocksDBMetricsRecorder;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * Kafka Streams' own RocksDB stores, built as Kafka builds them, with the instrument's hooks added the way Kafka's
 * own leak tests add theirs (RocksDBStoreCloseLeakTest's CapturingOffsetsRocksDBStore,
 * RocksDBMigratingWindowStoreWithHeadersCloseLeakTest's CapturingOffsetsMigratingWindowStore): a subclass in this
 * package that overrides the protected {@code openRocksDB(DBOptions, ColumnFamilyDescriptor...)} to see the
 * column-family options the store hands RocksDB (4.3.0 builds the offsets CF's with a static helper, 4.3.1 keeps
 * them in a field: both pass them through this method), the handles it gets back and the RocksDB object; and
 * {@code close()} to count the lifecycle, arm a close-time failure and watch the status write.
 *
 * <p>Everything else is Kafka's code from the jar on the classpath: openDB's options, the column-family accessors,
 * the status protocol, commit, the segmented store's segment creation and expiry
 * ({@code AbstractSegments.getOrCreateSegmentIfLive}, {@code cleanupExpiredSegments}) and its restore.
 *
 * <p>The close-time failure is a real RocksDB error on the status marker's write: when the instance is armed,
 * close() sets {@code sync = true} on the store's own {@code WriteOptions} (openDB made them with
 * {@code disableWAL = true}) before Kafka's close runs, so the accessor's {@code put(offsets, status, CLOSED)} is
 * refused by RocksDB with "Invalid argument: Sync writes has to enable WAL.". Kafka's close catches it, as it
 * catches any RocksDBException there, and goes on.
 *
 * <p>The same classes, compiled against 4.3.1, run Kafka 4.0 to 4.2 too (their jars on the classpath instead): the
 * hooked members (openRocksDB's signature, the db, wOptions and dbAccessor fields, TimestampedSegment's constructor,
 * TimestampedSegments' constructor and metricsRecorder) are the same there, and the segment creation, which 4.0 to
 * 4.2 do inside TimestampedSegments.getOrCreateSegment rather than through createSegment, is hooked in
 * {@link Segments#getOrCreateSegment}. Those versions have no offsets column family and write nothing at close, so
 * an armed close does not fail there: there is no status write for RocksDB to refuse.
 */
public final class RocksleakStores {
    private RocksleakStores() {
    }

    /** The name RocksDBStore gives the offsets column family. */
    static final byte[] OFFSETS = "offsets".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    /** What the instrument sees of one store instance and its RocksDB instances (segments). */
    public interface Hooks {
        /** The offsets CF's options, about to be handed to RocksDB (before the open, which may fail). */
        void offsetsOptions(ColumnFamilyOptions options);

        /** A RocksDB instance opened: the DB and the column-family handles Kafka got back. */
        void opened(RocksDB db, List<ColumnFamilyHandle> handles);

        /** Whether this instance's closes should fail their status write (see the class doc). */
        boolean armed();

        /**
         * Whether an armed close fails stickily: a malformed write batch is written first, which puts the DB into
         * RocksDB's failed state (as the Go engine's sticky fault, lifecycle/accessor.go), so the status write and
         * every later write fail with RocksDB's background error until the DB is reopened.
         */
        default boolean sticky() {
            return false;
        }

        /**
         * A RocksDB instance of this store closed: one lifecycle. statusWriteError is the RocksDB error of the
         * close-time status write (null when it succeeded or was not attempted); releasedLate is how many of the
         * instance's column-family handles were still owned after Kafka's accessor closed (its own release skipped)
         * and were released by RocksDB.close()'s safety net.
         */
        void closed(RocksDB db, String statusWriteError, int releasedLate);
    }

    /** A key-value store as Stores.persistentKeyValueStore(name).get() builds it: a RocksDBStore. */
    public static KeyValueStore<Bytes, byte[]> keyValue(final String name, final Hooks hooks) {
        return new KeyValue(name, hooks);
    }

    /**
     * A timestamped key-value store as Stores.persistentTimestampedKeyValueStore(name).get() builds it: a
     * RocksDBTimestampedStore, whose dual accessor serves a store holding old-format data.
     */
    public static KeyValueStore<Bytes, byte[]> timestampedKeyValue(final String name, final Hooks hooks) {
        return new TimestampedKeyValue(name, hooks);
    }

    /**
     * A timestamped window store as Stores.persistentTimestampedWindowStore builds it (RocksDbWindowBytesStoreSupplier
     * of type TIMESTAMPED_WINDOW_STORE: a RocksDBTimestampedWindowStore over a RocksDBTimestampedSegmentedBytesStore),
     * with its TimestampedSegments replaced by one whose segments carry the hooks (the segment class, creation,
     * opening, expiry and closing are Kafka's).
     */
    public static WindowStore<Bytes, byte[]> timestampedWindow(final String name, final long retentionMs,
                                                               final long segmentIntervalMs, final long windowSizeMs,
                                                               final Hooks hooks) {
        final WindowStore<Bytes, byte[]> store = new RocksDbWindowBytesStoreSupplier(name, retentionMs, segmentIntervalMs,
            windowSizeMs, false, RocksDbWindowBytesStoreSupplier.WindowStoreTypes.TIMESTAMPED_WINDOW_STORE).get();
        final Object bytesStore = ((WrappedStateStore<?, ?, ?>) store).wrapped();
        if (!(bytesStore instanceof RocksDBTimestampedSegmentedBytesStore)) {
            throw new IllegalStateException("the timestamped window store wraps a " + bytesStore.getClass().getName()
                + ", not a RocksDBTimestampedSegmentedBytesStore");
        }
        final String metricsScope = new RocksDbWindowBytesStoreSupplier(name, retentionMs, segmentIntervalMs,
            windowSizeMs, false, RocksDbWindowBytesStoreSupplier.WindowStoreTypes.TIMESTAMPED_WINDOW_STORE).metricsScope();
        try {
            final Field segments = AbstractRocksDBSegmentedBytesStore.class.getDeclaredField("segments");
            segments.setAccessible(true);
            segments.set(bytesStore, new Segments(name, metricsScope, retentionMs, segmentIntervalMs, hooks));
        } catch (final ReflectiveOperationException e) {
            throw new IllegalStateException("cannot hook the segments of Kafka's segmented store: " + e, e);
        }
        return store;
    }

    /** The segments of a window store, as TimestampedSegments makes them, with the hooks. */
    static final class Segments extends TimestampedSegments {
        private final Hooks hooks;
        private final RocksDBMetricsRecorder recorder;

        Segments(final String name, final String metricsScope, final long retention, final long segmentInterval,
                 final Hooks hooks) {
            super(name, metricsScope, retention, segmentInterval);
            this.hooks = hooks;
            try {
                final Field f = TimestampedSegments.class.getDeclaredField("metricsRecorder");
                f.setAccessible(true);
                this.recorder = (RocksDBMetricsRecorder) f.get(this);
            } catch (final ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read TimestampedSegments.metricsRecorder: " + e, e);
            }
        }

        @Override
        protected TimestampedSegment createSegment(final long segmentId, final String segmentName) {
            return new Segment(segmentName, name, segmentId, position, recorder, hooks);
        }

        /**
         * Kafka 4.3 and later create a segment through AbstractSegments.getOrCreateSegment, which calls
         * createSegment (above) and openSegmentDB: this defers to it. Kafka 4.0 to 4.2 have no createSegment:
         * TimestampedSegments.getOrCreateSegment builds {@code new TimestampedSegment(...)} itself, so there it is
         * that method as their jars have it (same map, same error, same {@code openDB(appConfigs, stateDir)}), with
         * the hooked segment class. Their getOrCreateSegmentIfLive and openExisting call it, as 4.3's call theirs.
         */
        @Override
        public TimestampedSegment getOrCreateSegment(final long segmentId, final StateStoreContext context) {
            if (CREATE_SEGMENT_HOOK) {
                return super.getOrCreateSegment(segmentId, context);
            }
            if (segments.containsKey(segmentId)) {
                return segments.get(segmentId);
            }
            final TimestampedSegment newSegment = createSegment(segmentId, segmentName(segmentId));
            if (segments.put(segmentId, newSegment) != null) {
                throw new IllegalStateException("TimestampedSegment already exists. Possible concurrent access.");
            }
            newSegment.openDB(context.appConfigs(), context.stateDir());
            return newSegment;
        }
    }

    /**
     * Whether the Kafka jar on the classpath creates segments through {@code AbstractSegments.createSegment} (4.3
     * and later) rather than inside {@code TimestampedSegments.getOrCreateSegment} (4.0 to 4.2).
     */
    static final boolean CREATE_SEGMENT_HOOK = declares(AbstractSegments.class, "createSegment", long.class,
        String.class);

    private static boolean declares(final Class<?> c, final String method, final Class<?>... params) {
        try {
            c.getDeclaredMethod(method, params);
            return true;
        } catch (final NoSuchMethodException e) {
            return false;
        }
    }

    /** A window segment: Kafka's TimestampedSegment with the hooks. */
    static final class Segment extends TimestampedSegment {
        private final Hooks hooks;
        private List<ColumnFamilyHandle> handles = List.of();

        Segment(final String segmentName, final String windowName, final long id,
                final org.apache.kafka.streams.query.Position position, final RocksDBMetricsRecorder recorder,
                final Hooks hooks) {
            super(segmentName, windowName, id, position, recorder);
            this.hooks = hooks;
        }

        @Override
        protected List<ColumnFamilyHandle> openRocksDB(final DBOptions dbOptions, final ColumnFamilyDescriptor first,
                                                       final ColumnFamilyDescriptor... rest) {
            handles = captureOpen(this, hooks, () -> super.openRocksDB(dbOptions, first, rest), rest);
            return handles;
        }

        @Override
        public synchronized void close() {
            hookedClose(this, hooks, handles, super::close);
        }

        // equals/hashCode are TimestampedSegment's (by id and class).
    }

    static final class KeyValue extends RocksDBStore {
        private final Hooks hooks;
        private List<ColumnFamilyHandle> handles = List.of();

        KeyValue(final String name, final Hooks hooks) {
            super(name, "rocksdb");
            this.hooks = hooks;
        }

        @Override
        protected List<ColumnFamilyHandle> openRocksDB(final DBOptions dbOptions, final ColumnFamilyDescriptor first,
                                                       final ColumnFamilyDescriptor... rest) {
            handles = captureOpen(this, hooks, () -> super.openRocksDB(dbOptions, first, rest), rest);
            return handles;
        }

        @Override
        public synchronized void close() {
            hookedClose(this, hooks, handles, super::close);
        }
    }

    static final class TimestampedKeyValue extends RocksDBTimestampedStore {
        private final Hooks hooks;
        private List<ColumnFamilyHandle> handles = List.of();

        TimestampedKeyValue(final String name, final Hooks hooks) {
            super(name, "rocksdb");
            this.hooks = hooks;
        }

        @Override
        protected List<ColumnFamilyHandle> openRocksDB(final DBOptions dbOptions, final ColumnFamilyDescriptor first,
                                                       final ColumnFamilyDescriptor... rest) {
            handles = captureOpen(this, hooks, () -> super.openRocksDB(dbOptions, first, rest), rest);
            return handles;
        }

        @Override
        public synchronized void close() {
            hookedClose(this, hooks, handles, super::close);
        }
    }

    private interface Opener {
        List<ColumnFamilyHandle> open();
    }

    private static List<ColumnFamilyHandle> captureOpen(final RocksDBStore store, final Hooks hooks, final Opener open,
                                                        final ColumnFamilyDescriptor[] rest) {
        for (final ColumnFamilyDescriptor d : rest) {
            if (Arrays.equals(d.getName(), OFFSETS) && d.getOptions() instanceof ColumnFamilyOptions) {
                hooks.offsetsOptions((ColumnFamilyOptions) d.getOptions());
            }
        }
        final List<ColumnFamilyHandle> handles = open.open();
        hooks.opened(store.db, handles);
        return handles;
    }

    /**
     * Kafka's close of one RocksDB instance, with the instrument around it: the status write armed to fail when the
     * hooks say so, the accessor's put and close watched through a delegating DBAccessor (Kafka's own
     * DirectDBAccessor does every write), and the lifecycle reported.
     */
    private static void hookedClose(final RocksDBStore store, final Hooks hooks, final List<ColumnFamilyHandle> handles,
                                    final Runnable kafkaClose) {
        if (!store.isOpen() || store.db == null) {
            kafkaClose.run();
            return;
        }
        final RocksDB db = store.db;
        final Watch watch = new Watch(handles);
        if (hooks.armed() && store.wOptions != null) {
            if (hooks.sticky()) {
                try (org.rocksdb.WriteBatch bad = new org.rocksdb.WriteBatch(new byte[] {0, 0, 0})) {
                    db.write(store.wOptions, bad);
                } catch (final org.rocksdb.RocksDBException expected) {
                    // the malformed batch's own error; the DB is now in its failed state
                }
            } else {
                store.wOptions.setSync(true); // with disableWAL: RocksDB refuses the write
            }
        }
        if (store.dbAccessor != null) {
            store.dbAccessor = watch.wrap(store.dbAccessor);
        }
        kafkaClose.run();
        int late = 0;
        for (final ColumnFamilyHandle h : watch.ownedAtAccessorClose) {
            if (!h.isOwningHandle()) {
                late++;
            }
        }
        hooks.closed(db, watch.putError, late);
    }

    /** Watches Kafka's DBAccessor during a close: the error of a put, the handles still owned at its close(). */
    private static final class Watch implements InvocationHandler {
        private final List<ColumnFamilyHandle> handles;
        private Object target;
        String putError;
        List<ColumnFamilyHandle> ownedAtAccessorClose = List.of();

        Watch(final List<ColumnFamilyHandle> handles) {
            this.handles = handles;
        }

        RocksDBStore.DBAccessor wrap(final RocksDBStore.DBAccessor accessor) {
            this.target = accessor;
            return (RocksDBStore.DBAccessor) Proxy.newProxyInstance(RocksDBStore.DBAccessor.class.getClassLoader(),
                new Class<?>[] {RocksDBStore.DBAccessor.class}, this);
        }

        @Override
        public Object invoke(final Object proxy, final java.lang.reflect.Method m, final Object[] args) throws Throwable {
            if (m.getName().equals("close") && m.getParameterCount() == 0) {
                // Kafka calls dbAccessor.close() after cfAccessor.close() and before db.close(): a handle still owned
                // here was skipped by the accessor and is left to RocksDB.close().
                final List<ColumnFamilyHandle> owned = new ArrayList<>();
                for (final ColumnFamilyHandle h : handles) {
                    if (h.isOwningHandle()) {
                        owned.add(h);
                    }
                }
                ownedAtAccessorClose = owned;
            }
            try {
                return m.invoke(target, args);
            } catch (final InvocationTargetException e) {
                if (m.getName().equals("put") && putError == null) {
                    putError = String.valueOf(e.getCause().getMessage());
                }
                throw e.getCause();
            }
        }
    }
}
