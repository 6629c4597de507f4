package org.apache.kafka.streams.state.internals;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.test.InternalMockProcessorContext;
import org.apache.kafka.test.StreamsTestUtils;
import org.apache.kafka.test.TestUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The 4.3 restore path of Kafka's segmented window store, run from the released kafka-streams jar on the classpath
 * (the version Maven resolved for {@code -Dkafka.version}): {@code AbstractRocksDBSegmentedBytesStore.restoreAllInternal}
 * does {@code segment.write(batch); batch.close();} per entry of the map of write batches, with no {@code finally}.
 *
 * <p>The failure is a real RocksDB error on the real write: the first segment written gets its own
 * {@code WriteOptions} (Kafka's {@code RocksDBStore.wOptions}, which Kafka builds with {@code disableWAL = true}) set to
 * {@code sync = true}, and RocksDB rejects the write ("Sync writes has to enable WAL"). It is arranged from inside
 * Kafka's own {@code getWriteBatches} (overridden to capture the map it returns), after the batches are built and
 * before {@code restoreAllInternal} writes them. Nothing of the store's code is replaced.
 *
 * <p>What the test shows, read from the real objects with {@code isOwningHandle()}: after the failed restore every
 * batch of the map still owns its native {@code WriteBatch} (the failed one and the ones never written), and RocksJava
 * has no finalizer or cleaner that would release them. The control restores the same records without the failure and
 * finds every batch released.
 */
public class RestoreWriteBatchLeakTest {
    static final long SEGMENT_INTERVAL = 60_000L;
    static final long RETENTION = 3 * SEGMENT_INTERVAL;

    /** Kafka's window store, with getWriteBatches overridden only to capture its result and arrange the failure. */
    static final class CapturingStore extends RocksDBSegmentedBytesStore {
        final List<Map.Entry<KeyValueSegment, WriteBatch>> batches = new ArrayList<>();
        boolean failFirstWrite;

        CapturingStore() {
            super("restore-leak", "metrics-scope", RETENTION, SEGMENT_INTERVAL, new WindowKeySchema());
        }

        @Override
        Map<KeyValueSegment, WriteBatch> getWriteBatches(final Collection<ConsumerRecord<byte[], byte[]>> records) {
            final Map<KeyValueSegment, WriteBatch> map = super.getWriteBatches(records);
            batches.addAll(map.entrySet()); // in the map's iteration order: the order restoreAllInternal writes them
            if (failFirstWrite) {
                map.keySet().iterator().next().wOptions.setSync(true);
            }
            return map;
        }
    }

    private CapturingStore store;

    @BeforeEach
    public void setUp() {
        final File dir = TestUtils.tempDirectory();
        final InternalMockProcessorContext<?, ?> context = new InternalMockProcessorContext<>(
            dir, Serdes.String(), Serdes.String(), new StreamsConfig(StreamsTestUtils.getStreamsConfig()));
        store = new CapturingStore();
        store.init(context, store);
    }

    @AfterEach
    public void tearDown() {
        for (final Map.Entry<KeyValueSegment, WriteBatch> e : store.batches) {
            e.getValue().close(); // idempotent; frees what the restore leaked so the test JVM does not carry it
            e.getKey().wOptions.setSync(false);
        }
        store.close();
    }

    /** Three changelog records, one per segment (timestamps 0, 60 s, 120 s; all live with 180 s retention). */
    static List<ConsumerRecord<byte[], byte[]>> changelog() {
        final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final Bytes key = WindowKeySchema.toStoreKeyBinary(
                Bytes.wrap(("key-" + i).getBytes(StandardCharsets.UTF_8)), i * SEGMENT_INTERVAL, 0);
            records.add(new ConsumerRecord<>("changelog", 0, i, key.get(), new byte[100]));
        }
        return records;
    }

    @Test
    public void shouldLeakEveryWriteBatchOfTheMapWhenASegmentWriteFailsDuringRestore() {
        store.failFirstWrite = true;
        final ProcessorStateException thrown =
            assertThrows(ProcessorStateException.class, () -> store.restoreAllInternal(changelog()));
        assertTrue(thrown.getCause() instanceof RocksDBException, "the failure is RocksDB's: " + thrown.getCause());
        System.out.println("restore failed as RocksDB said: " + thrown.getMessage() + " / " + thrown.getCause().getMessage());

        assertEquals(3, store.batches.size(), "one write batch per live segment");
        long bytes = 0;
        for (final Map.Entry<KeyValueSegment, WriteBatch> e : store.batches) {
            final WriteBatch batch = e.getValue();
            assertTrue(batch.isOwningHandle(),
                "segment " + e.getKey().name() + ": its WriteBatch still owns its native handle after the failed restore");
            bytes += batch.getDataSize();
            System.out.printf("segment %s: WriteBatch owning=%s count=%d dataSize=%d%n",
                e.getKey().name(), batch.isOwningHandle(), batch.count(), batch.getDataSize());
        }
        System.out.println("leaked WriteBatch data after one failed restore: " + bytes + " bytes in " + store.batches.size() + " batches");
    }

    @Test
    public void shouldReleaseEveryWriteBatchWhenRestoreSucceeds() {
        store.restoreAllInternal(changelog());
        assertEquals(3, store.batches.size(), "one write batch per live segment");
        for (final Map.Entry<KeyValueSegment, WriteBatch> e : store.batches) {
            assertFalse(e.getValue().isOwningHandle(), "segment " + e.getKey().name() + ": its WriteBatch is closed after the write");
        }
    }
}
