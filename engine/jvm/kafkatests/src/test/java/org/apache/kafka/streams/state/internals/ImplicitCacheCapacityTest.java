package org.apache.kafka.streams.state.internals;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.apache.kafka.test.StreamsTestUtils;
import org.apache.kafka.test.TestUtils;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * The block cache the offsets column family gets, read from RocksDB itself (the per-CF property
 * {@code rocksdb.block-cache-capacity}) under the rocksdbjni on the classpath, in Kafka's own {@code RocksDBStore} of
 * the kafka-streams jar on the classpath, beside a bare {@code new ColumnFamilyOptions()} on the same rocksdbjni.
 *
 * <p>Contract: the offsets CF (4.3.0's per-open options and 4.3.1's kept ones alike: neither sets a table factory)
 * has a block cache of RocksJava's default capacity, which is not the store's data-CF cache (Kafka's 50 MB LRU).
 * The figures are printed for docs/kafka-versions.md; nothing is compared with a hard-coded byte count.
 */
public class ImplicitCacheCapacityTest {
    static final String PROPERTY = "rocksdb.block-cache-capacity";

    /** The capacity RocksDB reports for a CF opened with a bare {@code new ColumnFamilyOptions()}. */
    static long bareDefaultCapacity() throws Exception {
        RocksDB.loadLibrary();
        final File dir = TestUtils.tempDirectory();
        final List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (ColumnFamilyOptions cfo = new ColumnFamilyOptions();
             DBOptions dbo = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
             RocksDB db = RocksDB.open(dbo, dir.getAbsolutePath(), List.of(
                 new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfo),
                 new ColumnFamilyDescriptor("bare".getBytes(), cfo)), handles)) {
            final long capacity = Long.parseLong(db.getProperty(handles.get(1), PROPERTY));
            for (final ColumnFamilyHandle h : handles) {
                h.close();
            }
            return capacity;
        }
    }

    static ColumnFamilyHandle offsetsHandle(final RocksDBStore store) throws Exception {
        final Field f = AbstractColumnFamilyAccessor.class.getDeclaredField("offsetColumnFamilyHandle");
        f.setAccessible(true);
        return (ColumnFamilyHandle) f.get(store.cfAccessor);
    }

    @Test
    public void offsetsCfHasItsOwnImplicitCacheOfTheDefaultCapacity() throws Exception {
        final long bare = bareDefaultCapacity();
        final File dir = TestUtils.tempDirectory();
        final InternalMockProcessorContext<?, ?> context = new InternalMockProcessorContext<>(
            dir, Serdes.String(), Serdes.String(), new StreamsConfig(StreamsTestUtils.getStreamsConfig()));
        final RocksDBStore store = new RocksDBStore("cache-capacity", "metrics-scope");
        store.init(context, store);
        try {
            final long offsets = Long.parseLong(store.db.getProperty(offsetsHandle(store), PROPERTY));
            final long data = Long.parseLong(store.db.getProperty(store.db.getDefaultColumnFamily(), PROPERTY));
            System.out.printf("kafka-streams %s, rocksdbjni %s: %s offsets CF = %d bytes, data CF = %d bytes, bare new ColumnFamilyOptions() = %d bytes%n",
                System.getProperty("kafka.version", "?"), RocksDB.rocksdbVersion(), PROPERTY, offsets, data, bare);
            assertTrue(offsets > 0, "the offsets CF has a block cache");
            assertEquals(bare, offsets, "the offsets CF's cache has RocksJava's default capacity");
            assertNotEquals(data, offsets, "the offsets CF's cache is not the store's data-CF cache");
        } finally {
            store.close();
        }
    }
}
