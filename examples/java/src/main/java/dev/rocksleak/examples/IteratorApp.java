package dev.rocksleak.examples;

import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.Random;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A topology whose wall-clock punctuator (every second) scans its store with {@code store.all()}. With
 * {@code example.close.iterators=false} it never closes the iterator: each punctuation leaves one open until the
 * store closes (Kafka closes a store's open iterators at its close, KAFKA-4223), so memory grows within a task's
 * life and is given back at its close. With {@code true} the scan is in try-with-resources: nothing stays open.
 */
public class IteratorApp {
    static final String INPUT = "input";
    private TopologyTestDriver lastDriver;
    private TestInputTopic<String, String> input;

    public Topology topology(final Properties props) {
        final boolean close = Boolean.parseBoolean(props.getProperty("example.close.iterators", "true"));
        final Topology t = new Topology();
        t.addSource("source", Serdes.String().deserializer(), Serdes.String().deserializer(), INPUT);
        t.addProcessor("scan", () -> new Scanner(close), "source");
        t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("latest"), Serdes.String(),
            Serdes.String()), "scan");
        return t;
    }

    public int pipe(final TopologyTestDriver driver, final long step, final Instant streamTime, final Random random) {
        if (driver != lastDriver) {
            lastDriver = driver;
            input = driver.createInputTopic(INPUT, new StringSerializer(), new StringSerializer());
        }
        for (int i = 0; i < 20; i++) {
            input.pipeInput("key-" + random.nextInt(200), "value-" + step, streamTime);
        }
        return 20;
    }

    static final class Scanner implements Processor<String, String, Void, Void> {
        private final boolean close;
        private KeyValueStore<String, String> store;

        Scanner(final boolean close) {
            this.close = close;
        }

        @Override
        public void init(final ProcessorContext<Void, Void> context) {
            store = context.getStateStore("latest");
            context.schedule(Duration.ofSeconds(1), PunctuationType.WALL_CLOCK_TIME, now -> scan());
        }

        private void scan() {
            if (close) {
                try (KeyValueIterator<String, String> it = store.all()) {
                    first(it);
                }
            } else {
                first(store.all()); // never closed: open until the store closes
            }
        }

        private static void first(final KeyValueIterator<String, String> it) {
            if (it.hasNext()) {
                final KeyValue<String, String> kv = it.next();
                if (kv.key == null) {
                    throw new IllegalStateException("a null key");
                }
            }
        }

        @Override
        public void process(final Record<String, String> r) {
            store.put(r.key(), r.value());
        }
    }
}
