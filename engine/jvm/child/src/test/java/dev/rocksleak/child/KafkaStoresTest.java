package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams' own stores, from the kafka-streams jar Maven put on the test classpath (-Dkafka.version, 4.3.1 by
 * default: run `mvn test -Dkafka.version=4.3.0` too), or from another version's jars put in their place
 * (engine/jvm/child/build.sh -t runs them against 4.2.2's classpath too, the classes compiled against 4.3.1), driven
 * through the executor. The expectations depend on the version: 4.3.0 leaves the offsets column family's options
 * owning their native object after the store's close and its accessor skips the handles' release when the status
 * write fails; 4.3.1 closes both; 4.0 to 4.2 have no offsets column family and no status write, so a close cannot
 * fail there and nothing restores, while the lifecycles (store closes, Kafka's own segment expiries) and
 * RocksJava's defaultReadOptions_ are counted as under 4.3.
 */
class KafkaStoresTest {
    static final String VERSION = AppInfoParser.getVersion();
    /**
     * Whether the expectations are 4.3.0's; -Drocksleak.expect=<version> asks for another version's expectations
     * than the jar's (how the tests were shown failing: 4.3.0's expectations against 4.3.1's jar, and back).
     */
    static final boolean LEAKY = System.getProperty("rocksleak.expect", VERSION).equals("4.3.0");
    /** Whether the expectations are a version's with the offsets column family (4.3 on; KIP-1035). */
    static final boolean OFFSETS_CF = !System.getProperty("rocksleak.expect", VERSION).matches("4\\.[012]\\..*");

    @TempDir
    Path dir;
    Executor ex;

    static final Executor.StopCheck NEVER = new Executor.StopCheck() {
        @Override
        public Executor.Stop atStep(final Executor e) {
            return Executor.Stop.NONE;
        }

        @Override
        public void samplePoint(final Executor e) {
        }
    };

    Executor executor(final String store) throws Exception {
        return executor(store, "");
    }

    /** An executor over JobTest.SCENARIO with the store kind and more scenario fields (",\"f\":v..."). */
    Executor executor(final String store, final String fields) throws Exception {
        final String scenario = JobTest.SCENARIO.replace("\"store\":\"kv\"", "\"store\":\"" + store + "\"")
            .replace("}", fields + "}");
        final Job job = Job.parse(new ObjectMapper().readTree("{\"scenario\":" + scenario
            + ",\"model\":\"kafka-" + VERSION + "\",\"seed\":7,\"state_dir\":\"" + dir.resolve("state")
            + "\",\"changelog_dir\":\"" + dir.resolve("cl") + "\"}"));
        ex = new Executor(job, true);
        return ex;
    }

    void run(final String... ops) throws Exception {
        final ObjectMapper m = new ObjectMapper();
        for (final String op : ops) {
            assertEquals(Executor.Stop.NONE, ex.execute(m.readTree(op), NEVER), op);
        }
    }

    @AfterEach
    void close() throws IOException {
        if (ex != null) {
            ex.closeAll();
        }
    }

    static String put(final int i, final long ts) {
        return "{\"op\":\"put\",\"task\":0,\"store\":0,\"key\":\"key-00000" + (i % 10) + "\",\"ts\":" + ts + ",\"ver\":"
            + (i + 1) + "}";
    }

    static final String OPEN = "{\"op\":\"open\",\"task\":0,\"store\":0,\"stream_time\":0,\"init_failures\":0}";
    static final String CLOSE = "{\"op\":\"close\",\"task\":0,\"store\":0}";
    static final String COMMIT = "{\"op\":\"commit\",\"task\":0}";
    static final String ARM = "{\"op\":\"arm\",\"task\":0,\"store\":0,\"fault\":\"transient\"}";

    @Test
    void theLedgerSeesTheOffsetsOptionsLiveAfterCloseOnlyUnder430() throws Exception {
        executor("kv");
        run(OPEN, put(0, 1), COMMIT);
        assertEquals(OFFSETS_CF ? 1L : 0L, ex.ledger.live().getOrDefault(Ledger.OPTIONS, 0L),
            "while the store is open its offsets-CF options are live (4.3 on; none before)");
        run(CLOSE);
        final Map<String, Long> live = ex.ledger.live();
        assertEquals(1, ex.lifecycles);
        assertEquals(LEAKY ? 1L : 0L, live.getOrDefault(Ledger.OPTIONS, 0L),
            "Kafka " + VERSION + ": offsets-CF options owning their native object after close: " + live);
        assertEquals(0L, live.getOrDefault(Ledger.CF_HANDLE, 0L), live.toString());
        assertEquals(0L, live.getOrDefault(Ledger.DB, 0L), live.toString());
        // RocksJava's RocksDB.defaultReadOptions_ (rocksdbjni 9.7.3 and 10.1.3): never closed by RocksDB.close().
        assertEquals(1L, live.getOrDefault(Ledger.READ_OPTIONS, 0L), live.toString());
    }

    @Test
    void anArmedCloseIsRefusedByRocksDBAndCountedAsAFailedClose() throws Exception {
        executor("kv");
        run(OPEN, put(0, 1), put(1, 2), ARM, CLOSE);
        assertEquals(1, ex.lifecycles);
        if (!OFFSETS_CF) {
            // 4.0 to 4.2: RocksDBStore.close() writes nothing, so the armed WriteOptions are never used.
            assertEquals(0, ex.failedCloses, String.valueOf(ex.firstCloseError));
            assertEquals(0L, ex.ledger.releasedLate().getOrDefault(Ledger.CF_HANDLE, 0L));
            assertEquals(0L, ex.ledger.live().getOrDefault(Ledger.CF_HANDLE, 0L));
            return;
        }
        assertEquals(1, ex.failedCloses);
        assertNotNull(ex.firstCloseError);
        assertTrue(ex.firstCloseError.contains("Sync writes has to enable WAL"), ex.firstCloseError);
        // 4.3.0's accessor skips both handles' release (offsets and data CF): RocksDB.close() releases them late.
        assertEquals(LEAKY ? 2L : 0L, ex.ledger.releasedLate().getOrDefault(Ledger.CF_HANDLE, 0L),
            "handles released late by RocksDB.close(): " + ex.ledger.releasedLate());
        assertEquals(0L, ex.ledger.live().getOrDefault(Ledger.CF_HANDLE, 0L));
    }

    @Test
    void aCommitDisarms() throws Exception {
        executor("kv");
        run(OPEN, put(0, 1), ARM, COMMIT, CLOSE);
        assertEquals(1, ex.lifecycles);
        assertEquals(0, ex.failedCloses, String.valueOf(ex.firstCloseError));
    }

    @Test
    void aFailedCloseUnderExactlyOnceWipesAndRestoresFromTheChangelog() throws Exception {
        executor("kv");
        run(OPEN);
        for (int i = 0; i < 25; i++) {
            run(put(i, i));
        }
        run(ARM, CLOSE, OPEN);
        if (!OFFSETS_CF) {
            // 4.0 to 4.2: no status marker, so no close fails and the reopen finds the store as it was.
            assertEquals(0, ex.failedCloses);
            assertEquals(0, ex.restores);
            assertEquals(1, ex.lifecycles, "the close");
            assertEquals(1, ex.openDbCount(), "opened again");
            return;
        }
        assertEquals(1, ex.failedCloses);
        assertEquals(1, ex.restores, "the status left 'open' is a TaskCorruptedException: wipe and restore");
        assertEquals(25, ex.restoredRecords);
        assertEquals(0, ex.taskErrors, ex.taskErrorExamples.toString());
    }

    @Test
    void windowSegmentsRollInsideKafkasSegmentedStore() throws Exception {
        executor("window");
        run(OPEN);
        // retention 120 s, segments of 60 s: stream time 0..360 s creates 7 segments and expires 4.
        for (int i = 0; i <= 36; i++) {
            run(put(i, i * 10_000L));
        }
        assertEquals(4, ex.lifecycles, "segments expired by Kafka's cleanupExpiredSegments");
        assertEquals(3, ex.openDbCount(), "live segments");
        run(CLOSE);
        assertEquals(7, ex.lifecycles);
        assertEquals(LEAKY ? 7L : 0L, ex.ledger.live().getOrDefault(Ledger.OPTIONS, 0L));
        assertEquals(7L, ex.ledger.live().getOrDefault(Ledger.READ_OPTIONS, 0L),
            "one defaultReadOptions_ per segment DB opened, none closed");
    }

    static String get(final int i) {
        return "{\"op\":\"get\",\"task\":0,\"store\":0,\"key\":\"key-00000" + (i % 10) + "\",\"ts\":" + i + "}";
    }

    static final String RANGE = "{\"op\":\"range\",\"task\":0,\"store\":0}";

    /**
     * Block-cache usage after the reads minus before them, on a store whose records are in an SST file (written,
     * closed: RocksDB flushes the memtable at close with the WAL off, then reopened), with or without read ops.
     */
    long blockCacheGrowth(final String store, final boolean reads) throws Exception {
        executor(store);
        run(OPEN);
        for (int i = 0; i < 10; i++) {
            run(put(i, i));
        }
        run(COMMIT, CLOSE, OPEN);
        final long before = ex.rocksdbFigures()[2];
        for (int i = 0; i < 10; i++) {
            if (reads) {
                run(get(i));
            }
        }
        if (reads) {
            run(RANGE);
        }
        run(COMMIT);
        assertEquals(0, ex.taskErrors, ex.taskErrorExamples.toString());
        return ex.rocksdbFigures()[2] - before;
    }

    @Test
    void readsFillKafkasPerStoreBlockCache() throws Exception {
        assertTrue(blockCacheGrowth("kv", true) > 0, "get and range read data blocks through the store's cache");
    }

    @Test
    void writesAloneLeaveTheBlockCacheAsItWas() throws Exception {
        assertEquals(0, blockCacheGrowth("kv", false), "negative control: no reads, no blocks cached");
    }

    @Test
    void windowReadsFillTheSegmentsBlockCaches() throws Exception {
        assertTrue(blockCacheGrowth("window", true) > 0, "fetch and all() read the segments' data blocks");
    }

    static final long BOUNDED_CACHE = 8L << 20;
    static final String BOUNDED = ",\"bounded_cache_bytes\":" + BOUNDED_CACHE + ",\"bounded_write_buffer_bytes\":" + (4L << 20);
    static final String OPEN_1 = "{\"op\":\"open\",\"task\":0,\"store\":1,\"stream_time\":0,\"init_failures\":0}";

    /** rocksdb.block-cache-capacity of every open DB. */
    long[] cacheCapacities() throws Exception {
        final java.util.List<org.rocksdb.RocksDB> dbs = ex.openDbList();
        final long[] out = new long[dbs.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = dbs.get(i).getLongProperty("rocksdb.block-cache-capacity");
        }
        return out;
    }

    @Test
    void boundedMemoryReachesOpenDBThroughRocksdbConfigSetter() throws Exception {
        executor("kv", BOUNDED + ",\"stores_per_task\":2"); // a repeated key: Jackson keeps the last
        run(OPEN, OPEN_1);
        assertEquals(2, ex.openDbCount());
        assertTrue(java.util.Arrays.equals(new long[] {BOUNDED_CACHE, BOUNDED_CACHE}, cacheCapacities()),
            "both stores use the setter's cache: " + java.util.Arrays.toString(cacheCapacities()));
        final org.rocksdb.Cache shared = BoundedMemorySetter.sharedCache();
        assertNotNull(shared, "Kafka's openDB instantiated the setter named by rocksdb.config.setter");
        // One cache: what one store's memtable charges to it (the write buffer manager's dummy entries) shows in both.
        for (int i = 0; i < 50; i++) {
            run(put(i, i));
        }
        final java.util.List<org.rocksdb.RocksDB> dbs = ex.openDbList();
        assertEquals(dbs.get(0).getLongProperty("rocksdb.block-cache-usage"),
            dbs.get(1).getLongProperty("rocksdb.block-cache-usage"), "one cache, one usage");
        assertEquals(shared.getUsage(), dbs.get(0).getLongProperty("rocksdb.block-cache-usage"));
    }

    @Test
    void withoutBoundedMemoryEachStoreHasKafkasOwnCache() throws Exception {
        executor("kv");
        run(OPEN);
        // Kafka's RocksDBStore.BLOCK_CACHE_SIZE: a 50 MB LRUCache per store (the negative control).
        assertEquals(50L << 20, cacheCapacities()[0]);
    }

    /**
     * The sticky fault on RocksJava (why the JVM engine still refuses close_failure_kind sticky, docs/fidelity.md):
     * the malformed batch puts the DB into RocksDB's failed state, the status write fails with that background error,
     * and the close cannot flush: with the WAL off, the reopened store holds neither the records nor a status, so no
     * TaskCorruptedException, no wipe. Kafka's state manager would restore from the store's committed offset, which
     * is gone too; the child does not model that catch-up restore. The transient fault (the control) keeps them.
     */
    @Test
    void aStickyArmedCloseLosesWhatTheMemtableHeld() throws Exception {
        executor("kv");
        run(OPEN);
        for (int i = 0; i < 25; i++) {
            run(put(i, i));
        }
        run(ARM.replace("transient", "sticky"), CLOSE, OPEN);
        if (!OFFSETS_CF) {
            assertEquals(0, ex.failedCloses); // 4.0 to 4.2: no status write to fail
            return;
        }
        assertEquals(1, ex.failedCloses);
        assertTrue(ex.firstCloseError.contains("malformed WriteBatch"), ex.firstCloseError);
        assertEquals(0, ex.restores, "no status on disk: no TaskCorruptedException");
        assertEquals(0, ex.scanRecords(0, 0), "the memtable's records are gone");
    }

    @Test
    void aTransientArmedCloseKeepsTheRecordsThroughTheRestore() throws Exception {
        executor("kv");
        run(OPEN);
        for (int i = 0; i < 25; i++) {
            run(put(i, i));
        }
        run(ARM, CLOSE, OPEN);
        assertEquals(10, ex.scanRecords(0, 0), "key_spread 10: every key is back");
    }
}
