package org.apache.kafka.streams.state.internals;

import static org.apache.kafka.streams.state.internals.RocksDBStore.DB_FILE_DIR;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.internals.metrics.RocksDBMetricsRecorder;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.apache.kafka.test.MockRocksDbConfigSetter;
import org.apache.kafka.test.StreamsTestUtils;
import org.apache.kafka.test.TestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * Kafka's own close-leak assertions (4.3.1's {@code RocksDBStoreCloseLeakTest} and
 * {@code RocksDBMigratingWindowStoreWithHeadersCloseLeakTest}), ported so that they link against 4.3.0 as well as
 * 4.3.1. Kafka's classes reach the objects through hooks 4.3.1 added for its tests ({@code offsetsCFOptions()},
 * {@code offsetColumnFamilyHandle()}, {@code columnFamily()}, {@code oldColumnFamily()}, {@code newColumnFamily()}), which
 * 4.3.0 lacks. Here the offsets options are captured from the {@code ColumnFamilyDescriptor} Kafka passes to its
 * protected {@code openRocksDB(DBOptions, ColumnFamilyDescriptor, ColumnFamilyDescriptor...)}, which both versions
 * have, and the handles are read from the accessors' private fields by reflection. The failure is injected by Kafka's
 * own {@code ThrowingOnOffsetsPutDBAccessor} (4.3.1 test jar). Each assertion and message is Kafka's.
 *
 * <p>Beside Kafka's handle assertions (made after {@code store.close()}, i.e. after {@code db.close()}), each handle
 * test also asserts ownership at the moment {@code RocksDBStore.close()} calls {@code dbAccessor.close()}: after the
 * column-family accessor's close and before {@code db.close()}, whose {@code ownedColumnFamilyHandles} loop releases
 * every handle the accessor skipped. That is where the 4.3.0 leak is visible on RocksJava.
 *
 * <p>Not named *Test: {@code mvn test} does not run it (it fails on 4.3.0 by design); kafka-tests.sh runs it beside
 * Kafka's own classes.
 */
public class CloseLeakAssertionsPort {
    private static final String DB_NAME = "db-name";
    private static final String METRICS_SCOPE = "metrics-scope";

    private InternalMockProcessorContext<?, ?> context;
    private RocksDBStore rocksDBStore;

    @BeforeEach
    public void setUp() {
        final Properties props = StreamsTestUtils.getStreamsConfig();
        props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, MockRocksDbConfigSetter.class);
        final File dir = TestUtils.tempDirectory();
        context = new InternalMockProcessorContext<>(dir, Serdes.String(), Serdes.String(), new StreamsConfig(props));
    }

    @AfterEach
    public void tearDown() {
        if (rocksDBStore != null) {
            rocksDBStore.close();
        }
    }

    /** The options of the "offsets" descriptor, as Kafka hands them to RocksDB. */
    static ColumnFamilyOptions offsetsOptions(final ColumnFamilyDescriptor[] descriptors) {
        for (final ColumnFamilyDescriptor d : descriptors) {
            if (Arrays.equals(d.getName(), "offsets".getBytes(StandardCharsets.UTF_8))) {
                return d.getOptions();
            }
        }
        return null;
    }

    static ColumnFamilyDescriptor[] descriptors(final ColumnFamilyDescriptor first, final ColumnFamilyDescriptor[] rest) {
        final ColumnFamilyDescriptor[] all = new ColumnFamilyDescriptor[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    static final class CapturingOffsetsRocksDBStore extends RocksDBStore {
        ColumnFamilyOptions capturedOffsetsOptions;

        CapturingOffsetsRocksDBStore() {
            super(DB_NAME, METRICS_SCOPE);
        }

        @Override
        protected List<ColumnFamilyHandle> openRocksDB(final DBOptions dbOptions, final ColumnFamilyDescriptor first,
                                                       final ColumnFamilyDescriptor... rest) {
            capturedOffsetsOptions = offsetsOptions(descriptors(first, rest));
            return super.openRocksDB(dbOptions, first, rest);
        }
    }

    static final class CapturingOffsetsMigratingWindowStore extends RocksDBMigratingWindowStoreWithHeaders {
        ColumnFamilyOptions capturedOffsetsOptions;

        CapturingOffsetsMigratingWindowStore() {
            super(DB_NAME, DB_FILE_DIR, new RocksDBMetricsRecorder(METRICS_SCOPE, DB_NAME));
        }

        @Override
        protected List<ColumnFamilyHandle> openRocksDB(final DBOptions dbOptions, final ColumnFamilyDescriptor first,
                                                       final ColumnFamilyDescriptor... rest) {
            capturedOffsetsOptions = offsetsOptions(descriptors(first, rest));
            return super.openRocksDB(dbOptions, first, rest);
        }
    }

    /**
     * Delegates everything to Kafka's accessor wrapper; on {@code close()} (which RocksDBStore.close() calls after the
     * column-family accessor's close and before db.close()) it records which handles still own their native objects.
     */
    static final class OwnershipAtDbAccessorClose implements RocksDBStore.DBAccessor {
        final RocksDBStore.DBAccessor delegate;
        final Map<String, ColumnFamilyHandle> handles;
        final Map<String, Boolean> owningAtClose = new LinkedHashMap<>();

        OwnershipAtDbAccessorClose(final RocksDBStore.DBAccessor delegate, final Map<String, ColumnFamilyHandle> handles) {
            this.delegate = delegate;
            this.handles = handles;
        }

        @Override public byte[] get(final ColumnFamilyHandle cf, final byte[] key) throws RocksDBException {
            return delegate.get(cf, key);
        }
        @Override public byte[] get(final ColumnFamilyHandle cf, final ReadOptions ro, final byte[] key) throws RocksDBException {
            return delegate.get(cf, ro, key);
        }
        @Override public RocksIterator newIterator(final ColumnFamilyHandle cf) {
            return delegate.newIterator(cf);
        }
        @Override public void put(final ColumnFamilyHandle cf, final byte[] key, final byte[] value) throws RocksDBException {
            delegate.put(cf, key, value);
        }
        @Override public void delete(final ColumnFamilyHandle cf, final byte[] key) throws RocksDBException {
            delegate.delete(cf, key);
        }
        @Override public void deleteRange(final ColumnFamilyHandle cf, final byte[] from, final byte[] to) throws RocksDBException {
            delegate.deleteRange(cf, from, to);
        }
        @Override public long approximateNumEntries(final ColumnFamilyHandle cf) throws RocksDBException {
            return delegate.approximateNumEntries(cf);
        }
        @Override public void flush(final ColumnFamilyHandle... cfs) throws RocksDBException {
            delegate.flush(cfs);
        }
        @Override public void reset() {
            delegate.reset();
        }
        @Override public void close() {
            handles.forEach((name, h) -> owningAtClose.put(name, h.isOwningHandle()));
            delegate.close();
        }
    }

    static ColumnFamilyHandle field(final Object accessor, final Class<?> declaring, final String name) {
        try {
            final Field f = declaring.getDeclaredField(name);
            f.setAccessible(true);
            return (ColumnFamilyHandle) f.get(accessor);
        } catch (final ReflectiveOperationException e) {
            throw new AssertionError("cannot read " + declaring.getSimpleName() + "." + name + ": " + e, e);
        }
    }

    /** Kafka's test body: wrap the DB accessor so the status put throws, close, assert; plus the pre-db.close() reading. */
    private void closeWithThrowingPutAndAssert(final Map<String, ColumnFamilyHandle> handles, final boolean atDbAccessorClose) {
        final ColumnFamilyHandle offsetsHandle = handles.get("offsets");
        handles.values().forEach(h -> assertTrue(h.isOwningHandle()));
        final ThrowingOnOffsetsPutDBAccessor wrapper = new ThrowingOnOffsetsPutDBAccessor(rocksDBStore.dbAccessor, offsetsHandle);
        final OwnershipAtDbAccessorClose probe = new OwnershipAtDbAccessorClose(wrapper, handles);
        rocksDBStore.dbAccessor = probe;

        rocksDBStore.close();

        assertTrue(wrapper.thrownPutCount.get() >= 1,
            "expected the closedState put on the offsets CF to be invoked and to throw");
        if (atDbAccessorClose) {
            final List<String> owning = new ArrayList<>();
            probe.owningAtClose.forEach((name, owns) -> {
                if (owns) {
                    owning.add(name);
                }
            });
            assertTrue(owning.isEmpty(), "CF handles still owning their native handle when RocksDBStore.close() reaches "
                + "dbAccessor.close() (after the accessor's close, before db.close()): " + owning);
        } else {
            handles.forEach((name, h) -> assertFalse(h.isOwningHandle(),
                name + " CF handle should still be closed when accessor.put throws"));
        }
    }

    private Map<String, ColumnFamilyHandle> singleHandles() {
        final Object accessor = rocksDBStore.cfAccessor;
        final Map<String, ColumnFamilyHandle> handles = new LinkedHashMap<>();
        handles.put("offsets", field(accessor, AbstractColumnFamilyAccessor.class, "offsetColumnFamilyHandle"));
        handles.put("data", field(accessor, RocksDBStore.SingleColumnFamilyAccessor.class, "columnFamily"));
        return handles;
    }

    private Map<String, ColumnFamilyHandle> dualHandles() {
        final Object accessor = rocksDBStore.cfAccessor;
        assertTrue(accessor instanceof DualColumnFamilyAccessor, "the seeded migrating store uses the dual accessor");
        final Map<String, ColumnFamilyHandle> handles = new LinkedHashMap<>();
        handles.put("offsets", field(accessor, AbstractColumnFamilyAccessor.class, "offsetColumnFamilyHandle"));
        handles.put("old", field(accessor, DualColumnFamilyAccessor.class, "oldColumnFamily"));
        handles.put("new", field(accessor, DualColumnFamilyAccessor.class, "newColumnFamily"));
        return handles;
    }

    private void prepareLegacyDefaultStore() {
        final RocksDBStore kvStore = new RocksDBStore(DB_NAME, METRICS_SCOPE);
        try {
            kvStore.init(context, kvStore);
            kvStore.put(new Bytes("seed-key".getBytes()), "seed-value".getBytes());
        } finally {
            kvStore.close();
        }
    }

    private void assertOffsetsOptionsReleased(final ColumnFamilyOptions captured) {
        assertNotNull(captured, "offsetsCFOptions should have been invoked during init");
        assertTrue(captured.isOwningHandle(), "offsets CF options should own its native handle while store is open");
        rocksDBStore.close();
        assertFalse(captured.isOwningHandle(), "offsets CF options native handle should be released by close()");
    }

    @Test
    public void rocksDBStore_shouldCloseOffsetsCfOptionsOnStoreClose() {
        final CapturingOffsetsRocksDBStore store = new CapturingOffsetsRocksDBStore();
        rocksDBStore = store;
        rocksDBStore.init(context, rocksDBStore);
        assertOffsetsOptionsReleased(store.capturedOffsetsOptions);
    }

    /** A plain key-value store, opened: the single-CF accessor. */
    private Map<String, ColumnFamilyHandle> openPlainStore() {
        rocksDBStore = new RocksDBStore(DB_NAME, METRICS_SCOPE);
        rocksDBStore.init(context, rocksDBStore);
        return singleHandles();
    }

    /** A migrating window store opened on a seeded default CF: the dual accessor (Kafka's set-up). */
    private Map<String, ColumnFamilyHandle> openSeededMigratingStore() {
        prepareLegacyDefaultStore();
        rocksDBStore = new RocksDBMigratingWindowStoreWithHeaders(DB_NAME, DB_FILE_DIR, new RocksDBMetricsRecorder(METRICS_SCOPE, DB_NAME));
        rocksDBStore.init(context, rocksDBStore);
        return dualHandles();
    }

    @Test
    public void rocksDBStore_shouldCloseColumnFamilyHandlesWhenAccessorPutThrowsDuringClose_afterStoreClose() {
        closeWithThrowingPutAndAssert(openPlainStore(), false);
    }

    @Test
    public void rocksDBStore_shouldCloseColumnFamilyHandlesWhenAccessorPutThrowsDuringClose_beforeDbClose() {
        closeWithThrowingPutAndAssert(openPlainStore(), true);
    }

    @Test
    public void migratingWindowStore_shouldCloseOffsetsCfOptionsOnStoreClose() {
        final CapturingOffsetsMigratingWindowStore store = new CapturingOffsetsMigratingWindowStore();
        rocksDBStore = store;
        rocksDBStore.init(context, rocksDBStore);
        assertOffsetsOptionsReleased(store.capturedOffsetsOptions);
    }

    @Test
    public void migratingWindowStore_shouldCloseAllDualColumnFamilyHandlesWhenAccessorPutThrowsDuringClose_afterStoreClose() {
        closeWithThrowingPutAndAssert(openSeededMigratingStore(), false);
    }

    @Test
    public void migratingWindowStore_shouldCloseAllDualColumnFamilyHandlesWhenAccessorPutThrowsDuringClose_beforeDbClose() {
        closeWithThrowingPutAndAssert(openSeededMigratingStore(), true);
    }
}
