package dev.rocksleak.child;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AppStores on Kafka's own stores in a real TopologyTestDriver: a key-value store and a window store of 30-minute
 * segments (an hour's retention), records ten minutes of stream time apart over three hours, so the window store
 * makes six segments and expires the oldest as it goes. The walk finds all seven RocksDB instances; the ledger
 * holds the open ones as {@code db} and every one's RocksJava read options as {@code read_options}, which outlive
 * the driver's close (facebook/rocksdb#15069) unless the read-options fix closes them.
 */
class AppStoresTest {
    private static final long SEGMENT_MS = 30 * 60_000L;
    private static final long BASE_MS = 944_444L * SEGMENT_MS; // a segment's start: six segments in three hours
    private static final int RECORDS = 18;

    @TempDir
    Path dir;

    @Test
    void findsEveryInstanceAndTheirReadOptionsOutliveTheDriver() {
        final Map<String, Long> atEnd = run(false, Map.of("db", 1L + 3, "read_options", 1L + 6));
        assertEquals(1L + 6, atEnd.get("read_options"), "every instance's read options, the closed ones' too: " + atEnd);
        assertNull(atEnd.get("db"), "no instance is open after the driver's close: " + atEnd);
    }

    @Test
    void theReadOptionsFixClosesThemAfterTheirInstances() {
        final Map<String, Long> atEnd = run(true, Map.of("db", 1L + 3, "read_options", 1L + 3));
        assertNull(atEnd.get("read_options"), "the fix closed every closed instance's read options: " + atEnd);
        assertNull(atEnd.get("db"), atEnd.toString());
    }

    /** One driver's life, looked at after each record as AppRun looks after each step; the ledger at the end. */
    private Map<String, Long> run(final boolean fix, final Map<String, Long> beforeClose) {
        final Ledger ledger = new Ledger();
        final AppStores stores = new AppStores(ledger, fix);
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "app-stores-test");
        p.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
        try (TopologyTestDriver driver = new TopologyTestDriver(topology(), p, Instant.ofEpochMilli(BASE_MS))) {
            stores.look(driver);
            final TestInputTopic<String, String> in =
                driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            for (int i = 0; i < RECORDS; i++) {
                in.pipeInput("k" + i, "v", BASE_MS + i * 10 * 60_000L);
                stores.look(driver);
            }
            // The key-value store and the window store's live segments (the expired ones closed).
            assertEquals(beforeClose, ledger.live(), "before the driver's close");
        }
        stores.closed();
        return ledger.live();
    }

    private static Topology topology() {
        final Topology t = new Topology();
        t.addSource("src", new StringDeserializer(), new StringDeserializer(), "in");
        t.addProcessor("put", Put::new, "src");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("kv"), Serdes.String(),
            Serdes.String()).withCachingDisabled().withLoggingDisabled(), "put");
        t.addStateStore(Stores.windowStoreBuilder(Stores.persistentWindowStore("win", Duration.ofHours(1),
            Duration.ofMinutes(1), false), Serdes.String(), Serdes.String()).withCachingDisabled().withLoggingDisabled(),
            "put");
        return t;
    }

    private static final class Put implements Processor<String, String, Void, Void> {
        private KeyValueStore<String, String> kv;
        private WindowStore<String, String> win;

        @Override
        public void init(final ProcessorContext<Void, Void> context) {
            kv = context.getStateStore("kv");
            win = context.getStateStore("win");
        }

        @Override
        public void process(final Record<String, String> r) {
            kv.put(r.key(), r.value());
            win.put(r.key(), r.value(), r.timestamp());
        }
    }
}
