package dev.rocksleak.examples;

import java.time.Instant;
import java.util.Properties;
import java.util.Random;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A key-value application for rocksleak's config-setter examples: one task whose processor writes every input
 * record into each of its {@code example.stores} persistent stores (default 1), so that the number of RocksDB
 * instances a task opens is a property. What rocksleak calls: {@link #topology} once per task's life and
 * {@link #pipe} once per step.
 */
public class KeyValueApp {
    static final String INPUT = "input";
    private TopologyTestDriver lastDriver;
    private TestInputTopic<String, String> input;

    /** The application's topology, from its properties (as its main would build it). */
    public Topology topology(final Properties props) {
        final int stores = Integer.parseInt(props.getProperty("example.stores", "1"));
        final String[] names = new String[stores];
        for (int i = 0; i < stores; i++) {
            names[i] = "kv-" + i;
        }
        final Topology t = new Topology();
        t.addSource("source", Serdes.String().deserializer(), Serdes.String().deserializer(), INPUT);
        t.addProcessor("write", () -> new Writer(names), "source");
        for (final String n : names) {
            t.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(n), Serdes.String(),
                Serdes.String()), "write");
        }
        return t;
    }

    /** Pipes one step's records at the step's stream time; returns how many. */
    public int pipe(final TopologyTestDriver driver, final long step, final Instant streamTime, final Random random) {
        if (driver != lastDriver) {
            lastDriver = driver;
            input = driver.createInputTopic(INPUT, new StringSerializer(), new StringSerializer());
        }
        for (int i = 0; i < 20; i++) {
            input.pipeInput("key-" + random.nextInt(1000), "value-" + step + "-" + i, streamTime);
        }
        return 20;
    }

    static final class Writer implements Processor<String, String, Void, Void> {
        private final String[] names;
        private KeyValueStore<String, String>[] stores;

        Writer(final String[] names) {
            this.names = names;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void init(final ProcessorContext<Void, Void> context) {
            stores = new KeyValueStore[names.length];
            for (int i = 0; i < names.length; i++) {
                stores[i] = context.getStateStore(names[i]);
            }
        }

        @Override
        public void process(final Record<String, String> r) {
            for (final KeyValueStore<String, String> s : stores) {
                s.put(r.key(), r.value());
            }
        }
    }
}
